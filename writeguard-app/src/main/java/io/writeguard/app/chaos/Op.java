package io.writeguard.app.chaos;

import java.util.Objects;

/**
 * One operation of the history: a mark or a ledger entry with a unique identity, when it was
 * invoked and completed, and how it ended. Immutable and thread-safe.
 *
 * <p>Outcomes: {@link Outcome#ACK} the server acknowledged it (it must be in the final state
 * exactly once); {@link Outcome#FAIL} a typed refusal that guarantees nothing was written (it
 * must not be in the final state); {@link Outcome#UNKNOWN} the request may or may not have
 * been applied (a timeout, a reset connection): either final state is allowed, and the checker
 * reports which one it found.
 *
 * @param id unique across the run; it is the user id of a mark and the ledger key of an entry
 * @param workload {@code readinfo} or {@code counter}
 * @param client who ran it ({@code coord-3}, {@code holder}, {@code serve-b})
 * @param startMillis wall clock at invocation (all processes run on one machine)
 * @param latencyNanos measured with {@code nanoTime} by the process that ran it
 * @param amount the ledger amount (0 for a mark)
 * @param fencedRejections stale writes the fence refused inside this operation
 * @param held true for the operation that was paused (SIGSTOP) between its read and its write
 * @param detail the error or the HTTP status, one line
 */
public record Op(String id, String workload, String strategy, String client, Outcome outcome,
    long startMillis, long latencyNanos, long amount, int fencedRejections, boolean held,
    String detail) {

  /** How an operation ended. */
  public enum Outcome { ACK, FAIL, UNKNOWN }

  public Op {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(outcome, "outcome");
    detail = detail == null ? "" : detail.replaceAll("[\\t\\r\\n]+", " ");
  }

  public long endMillis() {
    return startMillis + latencyNanos / 1_000_000L;
  }

  /** One tab-separated line, for a child process's stdout. */
  public String toLine() {
    return String.join("\t", "OP", id, workload, strategy, client, outcome.name(),
        Long.toString(startMillis), Long.toString(latencyNanos), Long.toString(amount),
        Integer.toString(fencedRejections), Boolean.toString(held), detail);
  }

  /** Parses {@link #toLine()}; null for any other line. */
  public static Op parse(String line) {
    if (line == null || !line.startsWith("OP\t")) {
      return null;
    }
    String[] f = line.split("\t", -1);
    return new Op(f[1], f[2], f[3], f[4], Outcome.valueOf(f[5]), Long.parseLong(f[6]),
        Long.parseLong(f[7]), Long.parseLong(f[8]), Integer.parseInt(f[9]),
        Boolean.parseBoolean(f[10]), f.length > 11 ? f[11] : "");
  }
}
