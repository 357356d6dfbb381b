package io.writeguard.app.chaos;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Judges the history of one fault against the final state, per workload and strategy:
 *
 * <ul>
 *   <li>every acknowledged operation is in the final state exactly once (else lost or
 *       duplicated); a failed one is not (else "phantom"); an unknown one may be either, and
 *       the checker counts how many were applied; an id in the state that no operation has is
 *       "unexplained";
 *   <li>the counter's ledger, replayed in its order from the initial balance, never goes below
 *       zero, and ends at the stored balance;
 *   <li>an operation paused past its lease ({@link Op#held()}) on a lease-lock strategy, while
 *       another process wrote the same document, must have been refused by the fence at least
 *       once; otherwise its stale write got past the fence;
 *   <li>every operation completed within its documented bound ({@link ChaosSettings#bound}),
 *       except the paused one (it was frozen on purpose);
 *   <li>the first acknowledged operation invoked after the fault's recovery point came within
 *       the fault's recovery bound.
 * </ul>
 *
 * Stateless apart from its settings; thread-safe.
 */
final class Checker {
  private final ChaosSettings settings;

  Checker(ChaosSettings settings) {
    this.settings = settings;
  }

  /** What the final state holds for one workload and strategy. */
  record FinalState(Map<String, Integer> applied, List<Long> ledger, long balance) {

    /** Reads document {@code id}: a readinfo document, or a counter's (it has a ledger). */
    static FinalState read(MongoCollection<Document> docs, ObjectId id) {
      Document doc = docs.find(eq("_id", id)).first();
      Map<String, Integer> applied = new HashMap<>();
      List<Long> ledger = new ArrayList<>();
      long balance = 0;
      if (doc == null) {
        return new FinalState(applied, ledger, balance);
      }
      if (!doc.containsKey("ledger")) {
        Document infos = doc.get("infos", Document.class);
        List<Document> items = infos.get("k0", Document.class).getList("s0", Document.class);
        for (Document item : items) {
          for (Object user : item.getList("read", Object.class, List.of())) {
            applied.merge(String.valueOf(user), 1, Integer::sum);
          }
        }
      } else {
        for (Document entry : doc.getList("ledger", Document.class, List.of())) {
          applied.merge(entry.getString("op"), 1, Integer::sum);
          ledger.add(((Number) entry.get("amount")).longValue());
        }
        balance = ((Number) doc.get("balance")).longValue();
      }
      return new FinalState(applied, ledger, balance);
    }
  }

  /**
   * The fault's recovery point and bound: the first acknowledged operation invoked at or after
   * {@code fromMillis} by a client whose name starts with {@code clientPrefix} must complete
   * within {@code boundMillis} of it.
   */
  record Recovery(long fromMillis, long boundMillis, String clientPrefix) {}

  /** Checks one workload and strategy of one fault. */
  ChaosRow check(String fault, String workload, String strategy, List<Op> ops, FinalState state,
      Recovery recovery, List<String> faultViolations) {
    ChaosRow.Builder row = new ChaosRow.Builder(fault, workload, strategy);
    Map<String, Integer> applied = new HashMap<>(state.applied());
    long boundNanos = settings.bound(strategy).toNanos();
    long firstAckAfter = Long.MAX_VALUE;
    boolean invokedAfter = false;
    for (Op op : ops) {
      row.ops++;
      int times = applied.getOrDefault(op.id(), 0);
      applied.remove(op.id());
      switch (op.outcome()) {
        case ACK -> {
          row.acknowledged++;
          if (times == 0) {
            row.lost++;
            row.example("lost " + op.id());
          } else if (times > 1) {
            row.duplicated++;
            row.example("duplicated " + op.id() + " x" + times);
          }
        }
        case FAIL -> {
          row.failed++;
          if (times > 0) {
            row.phantom++;
            row.example("failed but applied " + op.id() + " (" + op.detail() + ")");
          }
        }
        case UNKNOWN -> {
          row.unknown++;
          if (times > 0) {
            row.unknownApplied++;
          }
          if (times > 1) {
            row.duplicated++;
            row.example("duplicated " + op.id() + " x" + times);
          }
        }
      }
      if (op.held()) {
        judgeHeld(row, op, ops);
      } else {
        row.maxLatencyNanos = Math.max(row.maxLatencyNanos, op.latencyNanos());
        if (op.latencyNanos() > boundNanos) {
          row.overBound++;
          row.example("over bound " + op.id() + " " + op.latencyNanos() / 1_000_000 + " ms ("
              + op.detail() + ")");
        }
      }
      if (recovery != null && op.startMillis() >= recovery.fromMillis()
          && op.client().startsWith(recovery.clientPrefix())) {
        invokedAfter = true;
        if (op.outcome() == Op.Outcome.ACK) {
          firstAckAfter = Math.min(firstAckAfter, op.endMillis());
        }
      }
    }
    row.unexplained = applied.size();
    if (!applied.isEmpty()) {
      row.example("unexplained " + applied.keySet().iterator().next());
    }
    if (workload.equals(Load.COUNTER)) {
      long balance = LedgerOps.INITIAL_BALANCE;
      for (long amount : state.ledger()) {
        balance += amount;
        if (balance < 0) {
          row.negative++;
        }
      }
      if (balance != state.balance()) {
        row.example("balance " + state.balance() + " but the ledger sums to " + balance);
        row.balanceMismatch = true;
      }
    }
    if (recovery != null) {
      row.recoveryBoundMillis = recovery.boundMillis();
      if (firstAckAfter != Long.MAX_VALUE) {
        row.recoveryMillis = Math.max(0, firstAckAfter - recovery.fromMillis());
      } else if (invokedAfter) {
        row.recoveryMillis = Long.MAX_VALUE; // never recovered
      }
    }
    faultViolations.forEach(row::violation);
    return row.build();
  }

  /** When the paused operation read ({@code read=<millis>} in its detail), else its start. */
  static long readMillis(Op held) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^read=(\\d+)")
        .matcher(held.detail());
    return m.find() && Long.parseLong(m.group(1)) > 0 ? Long.parseLong(m.group(1))
        : held.startMillis();
  }

  /**
   * The fencing token {@code name=<n>} in an operation's detail, or -1: {@code token} is the
   * token of a counter lock write, {@code readToken} the token the paused operation read with.
   */
  static long token(Op op, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^| )" + name + "=(\\d+)")
        .matcher(op.detail());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** A paused lease-lock writer must have been refused by the fence if someone wrote meanwhile. */
  private static void judgeHeld(ChaosRow.Builder row, Op held, List<Op> ops) {
    if (!held.strategy().endsWith("-lock") || held.outcome() == Op.Outcome.UNKNOWN) {
      return;
    }
    // Another write acknowledged after the paused read and before the paused op ended: the
    // paused op's write comes after it, so it must have been refused at least once. When both
    // tokens are known, a lower token held the lock before the paused read, whatever the
    // clocks say (its acknowledgement may be taken after the release that let the paused op
    // in): it cannot make the paused write stale.
    long readAt = readMillis(held);
    long heldToken = token(held, "readToken");
    boolean otherWrote = ops.stream().anyMatch(o -> !o.held()
        && o.outcome() == Op.Outcome.ACK && o.endMillis() > readAt
        && o.endMillis() < held.endMillis()
        && !(heldToken >= 0 && token(o, "token") >= 0 && token(o, "token") < heldToken));
    if (!otherWrote) {
      row.example("paused " + held.id() + ": nobody wrote while it was paused (not exercised)");
      return;
    }
    if (held.outcome() == Op.Outcome.ACK) {
      // Acknowledged after the pause: its first write must have been refused, then redone.
      if (held.fencedRejections() > 0) {
        row.staleRefused++;
      } else {
        row.stalePassed++;
        row.example("stale write passed the fence: " + held.id());
      }
    } else if (held.detail().contains("StaleLockException")) {
      row.staleRefused++;
    } else {
      // Failed some other way (a lock wait after the refusal): nothing acknowledged to judge;
      // had its stale write been applied, it would count as failed but applied.
      row.example("paused " + held.id() + " failed: " + held.detail());
    }
  }
}
