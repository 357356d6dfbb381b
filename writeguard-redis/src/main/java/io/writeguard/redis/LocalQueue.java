package io.writeguard.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One FIFO queue per key inside this process, so that only the head of each queue talks to
 * Redis: 64 threads wanting one key make one Redis waiter, not 64 pollers.
 *
 * <p>Each key has a fair one-permit {@link Semaphore} (FIFO, and not owned by a thread, so a
 * slot can be freed from the watchdog thread when its lease is lost). An entry counts its users
 * (holder plus waiters); the last user to leave removes it, so idle keys cost no memory. The
 * count is changed only inside {@link ConcurrentHashMap#compute}, which makes "last one out
 * removes" and "newcomer reuses" atomic with each other. Thread-safe.
 */
final class LocalQueue {

  private static final class Entry {
    final Semaphore permit = new Semaphore(1, true);
    int users; // guarded by the map's lock for this key
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /** The right to talk to Redis for one key; {@link #free()} gives it to the next in line. */
  final class Slot {
    private final String key;
    private final Entry entry;
    private final AtomicBoolean freed = new AtomicBoolean();

    private Slot(String key, Entry entry) {
      this.key = key;
      this.entry = entry;
    }

    /** Frees the slot once; later calls do nothing. Any thread may call it. */
    void free() {
      if (freed.compareAndSet(false, true)) {
        entry.permit.release();
        leave(key);
      }
    }
  }

  /** Waits up to {@code timeoutNanos} for the head of {@code key}'s queue; null on timeout. */
  Slot acquire(String key, long timeoutNanos) throws InterruptedException {
    Entry entry = join(key);
    boolean got = false;
    try {
      got = entry.permit.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
    } finally {
      if (!got) {
        leave(key);
      }
    }
    return got ? new Slot(key, entry) : null;
  }

  /** The slot if nobody holds or waits for it now, else null. Never waits. */
  Slot tryAcquire(String key) {
    Entry entry = join(key);
    // A plain tryAcquire() would barge past waiters: take the slot only if nobody queues.
    boolean got = !entry.permit.hasQueuedThreads() && entry.permit.tryAcquire();
    if (!got) {
      leave(key);
      return null;
    }
    return new Slot(key, entry);
  }

  /** Callers now waiting for {@code key} in this process (an estimate, for messages). */
  int waiting(String key) {
    Entry entry = entries.get(key);
    return entry == null ? 0 : entry.permit.getQueueLength();
  }

  /** Keys with a holder or waiter; idle keys are gone. */
  int size() {
    return entries.size();
  }

  private Entry join(String key) {
    return entries.compute(key, (k, e) -> {
      Entry entry = e == null ? new Entry() : e;
      entry.users++;
      return entry;
    });
  }

  private void leave(String key) {
    entries.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
  }
}
