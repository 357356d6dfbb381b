package io.writeguard.app.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * The checker's verdict for one fault, workload and strategy. Immutable and thread-safe.
 *
 * @param unknownApplied how many of the unknown operations the final state holds
 * @param phantom failed operations that were applied anyway
 * @param unexplained ids in the final state that no operation of the history has
 * @param negative ledger steps that took the balance below zero
 * @param staleRefused paused holders whose late write the fence refused
 * @param stalePassed paused holders whose late write got past the fence
 * @param overBound operations that took longer than their documented bound
 * @param recoveryMillis from the fault's recovery point to the first acknowledged operation
 *     invoked after it; -1 when nothing was invoked after it, {@code Long.MAX_VALUE} never
 * @param violations fault-level problems (a request cut by a graceful stop, a token that went
 *     backwards, a 200 after the stop began)
 * @param examples up to five ids or facts behind the counts
 */
public record ChaosRow(String fault, String workload, String strategy, int ops,
    int acknowledged, int failed, int unknown, int unknownApplied, int lost, int duplicated,
    int phantom, int unexplained, int negative, boolean balanceMismatch, int staleRefused,
    int stalePassed, long maxLatencyMillis, int overBound, long recoveryMillis,
    long recoveryBoundMillis, List<String> violations, List<String> examples) {

  public ChaosRow {
    violations = List.copyOf(violations);
    examples = List.copyOf(examples);
  }

  /** This row with {@code notes} added to its examples (facts about the fault). */
  ChaosRow withNotes(List<String> notes) {
    if (notes.isEmpty()) {
      return this;
    }
    List<String> all = new ArrayList<>(notes);
    all.addAll(examples);
    return new ChaosRow(fault, workload, strategy, ops, acknowledged, failed, unknown,
        unknownApplied, lost, duplicated, phantom, unexplained, negative, balanceMismatch,
        staleRefused, stalePassed, maxLatencyMillis, overBound, recoveryMillis,
        recoveryBoundMillis, violations, all);
  }

  /** True when nothing was lost, duplicated or phantom and every bound held. */
  public boolean ok() {
    return lost == 0 && duplicated == 0 && phantom == 0 && unexplained == 0 && negative == 0
        && !balanceMismatch && stalePassed == 0 && overBound == 0 && recoveredInTime()
        && violations.isEmpty();
  }

  /** True when the fault's recovery bound held (or it has none, or nothing ran after it). */
  public boolean recoveredInTime() {
    return recoveryMillis < 0 || recoveryBoundMillis <= 0 || recoveryMillis <= recoveryBoundMillis;
  }

  /** Collects the counts of one row; not thread-safe. */
  static final class Builder {
    final String fault;
    final String workload;
    final String strategy;
    int ops;
    int acknowledged;
    int failed;
    int unknown;
    int unknownApplied;
    int lost;
    int duplicated;
    int phantom;
    int unexplained;
    int negative;
    boolean balanceMismatch;
    int staleRefused;
    int stalePassed;
    long maxLatencyNanos;
    int overBound;
    long recoveryMillis = -1;
    long recoveryBoundMillis;
    private final List<String> violations = new ArrayList<>();
    private final List<String> examples = new ArrayList<>();

    Builder(String fault, String workload, String strategy) {
      this.fault = fault;
      this.workload = workload;
      this.strategy = strategy;
    }

    void example(String text) {
      if (examples.size() < 5) {
        examples.add(text);
      }
    }

    void violation(String text) {
      violations.add(text);
    }

    ChaosRow build() {
      return new ChaosRow(fault, workload, strategy, ops, acknowledged, failed, unknown,
          unknownApplied, lost, duplicated, phantom, unexplained, negative, balanceMismatch,
          staleRefused, stalePassed, maxLatencyNanos / 1_000_000, overBound, recoveryMillis,
          recoveryBoundMillis, violations, examples);
    }
  }
}
