package io.writeguard.monitor;

/**
 * What kind of change a collection's updates make; it decides the advice a retry-storm warning
 * gives. Declared per collection on {@link ConflictMonitor.Builder#changeKind}.
 * Immutable and thread-safe (an enum).
 */
public enum ChangeKind {
  /** The change fits one update operator ($inc, $addToSet, $push, $set on a path). */
  ATOMIC_EXPRESSIBLE(
      "this change fits one update: use an atomic operator ($addToSet/$push/$inc/$set on the"
          + " validated path) - one round trip, no read, no retry"),
  /** A hot number (a balance, a counter) that every writer changes. */
  HOT_NUMBER(
      "this is one hot number: split it into a sharded counter (io.writeguard.counter) so"
          + " writers spread over shards"),
  /** Anything else: a read-change-write that needs the whole document. */
  GENERAL(
      "serialise writers on the hot keys with a lock (or the adaptive strategy, which switches"
          + " only the hot keys to a lock)");

  private final String advice;

  ChangeKind(String advice) {
    this.advice = advice;
  }

  /** The advice logged with a retry-storm warning. */
  public String advice() {
    return advice;
  }
}
