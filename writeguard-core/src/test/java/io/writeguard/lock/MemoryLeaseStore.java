package io.writeguard.lock;

import java.util.HashMap;
import java.util.Map;

/**
 * A {@link LeaseStore} in memory, for engine tests without a server: no expiry (leases end by
 * release or abandon), tokens per key that only rise, and two faults to inject: a take that is
 * applied and then throws (its reply lost), and a release that asks for a yield. Thread-safe
 * (synchronized).
 */
final class MemoryLeaseStore implements LeaseStore {
  private record Held(String owner, String attempt, Grant grant) {}

  private final Map<String, Held> held = new HashMap<>();
  private final Map<String, Long> tops = new HashMap<>();
  private final Map<String, Integer> grants = new HashMap<>();
  private boolean loseNextTakeReply;
  private long yieldNanos;

  synchronized void loseNextTakeReply() {
    loseNextTakeReply = true;
  }

  synchronized void askForYields(long nanos) {
    yieldNanos = nanos;
  }

  /** Takes of {@code key} that were granted a new block (resends not counted). */
  synchronized int grants(String key) {
    return grants.getOrDefault(key, 0);
  }

  synchronized String holder(String key) {
    Held h = held.get(key);
    return h == null ? null : h.owner();
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public synchronized Take take(String key, String owner, String attempt, int block, boolean queued) {
    Held current = held.get(key);
    if (current != null && !(current.owner().equals(owner) && current.attempt().equals(attempt))) {
      return Take.busy(Long.MAX_VALUE);
    }
    Grant grant = current != null ? current.grant() : mint(key, block);
    if (current == null) {
      grants.merge(key, 1, Integer::sum);
    }
    held.put(key, new Held(owner, attempt, grant));
    if (loseNextTakeReply) {
      loseNextTakeReply = false;
      throw new IllegalStateException("reply lost (test): the take was applied");
    }
    return new Take(grant, 0);
  }

  private Grant mint(String key, int block) {
    long top = tops.merge(key, (long) block, Long::sum);
    return new Grant(top - block + 1, top);
  }

  @Override
  public synchronized boolean renew(String key, String owner, String attempt, Grant grant) {
    return ours(key, owner, attempt);
  }

  @Override
  public synchronized long release(String key, String owner, String attempt, Grant grant) {
    if (ours(key, owner, attempt)) {
      held.remove(key);
    }
    return yieldNanos;
  }

  @Override
  public synchronized void abandon(String key, String owner, String attempt) {
    release(key, owner, attempt, null);
  }

  @Override
  public BusyWait busyWait(String key) {
    return (attempt, retryHintNanos, maxNanos) -> Thread.sleep(Math.max(1, Math.min(maxNanos / 1_000_000, 5)));
  }

  private boolean ours(String key, String owner, String attempt) {
    Held h = held.get(key);
    return h != null && h.owner().equals(owner) && h.attempt().equals(attempt);
  }
}
