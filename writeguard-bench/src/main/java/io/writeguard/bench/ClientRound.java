package io.writeguard.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.types.ObjectId;

/**
 * Runs one process's share of a round: {@code clients} threads, each doing one operation after
 * another on the hot document until the round's time is up (an operation started before the
 * end finishes and counts). Operation ids are {@code k * processes + process} for this
 * process's k-th operation, so ids are unique across processes and dense enough for a bitmap.
 * Each client keeps its own tallies; they are merged when all clients are done.
 *
 * <p>Client {@code c} works on {@code docs[c % docs.size()]}: one document for all, or one each.
 * Each client also measures, on its own thread, the bytes it allocated and the CPU time it
 * used between the start and the end of the round ({@code com.sun.management.ThreadMXBean});
 * threads other than the clients' (the embedded server's, the driver's background ones) are
 * not counted.
 */
final class ClientRound {
  private ClientRound() {}

  private static final com.sun.management.ThreadMXBean THREADS = threads();

  /** Runs the round and returns this process's part; {@code maxOps} > 0 caps each client. */
  static RoundPart run(Contender contender, ObjectId docId, int clients, Duration duration,
      long maxOps, int process, int processes) {
    return run(contender, List.of(docId), clients, duration, maxOps, process, processes);
  }

  /** As above, client {@code c} on {@code docs.get(c % docs.size())}. */
  static RoundPart run(Contender contender, List<ObjectId> docs, int clients, Duration duration,
      long maxOps, int process, int processes) {
    if (docs.isEmpty()) {
      throw new IllegalArgumentException("no documents for the round");
    }
    AtomicLong next = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<RoundPart> parts = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      RoundPart part = new RoundPart();
      parts.add(part);
      ObjectId docId = docs.get(c % docs.size());
      threads.add(new Thread(() -> {
        await(start);
        long id = Thread.currentThread().getId();
        long bytes0 = THREADS == null ? -1 : THREADS.getThreadAllocatedBytes(id);
        long cpu0 = THREADS == null ? -1 : THREADS.getThreadCpuTime(id);
        long end = System.nanoTime() + duration.toNanos();
        for (long n = 0; (maxOps <= 0 || n < maxOps) && System.nanoTime() < end; n++) {
          long opId = next.getAndIncrement() * processes + process;
          one(contender, docId, opId, part);
        }
        part.allocatedBytes = bytes0 < 0 ? -1 : THREADS.getThreadAllocatedBytes(id) - bytes0;
        part.cpuNanos = cpu0 < 0 ? -1 : THREADS.getThreadCpuTime(id) - cpu0;
      }, "bench-" + contender.name() + "-" + c));
    }
    threads.forEach(Thread::start);
    long started = System.nanoTime();
    start.countDown();
    for (Thread thread : threads) {
      join(thread);
    }
    RoundPart total = new RoundPart();
    parts.forEach(total::merge);
    total.elapsedNanos = System.nanoTime() - started;
    return total;
  }

  /** The JVM's per-thread allocation and CPU counters, switched on; null where missing. */
  private static com.sun.management.ThreadMXBean threads() {
    if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t)
        || !t.isThreadAllocatedMemorySupported() || !t.isThreadCpuTimeSupported()) {
      return null;
    }
    t.setThreadAllocatedMemoryEnabled(true);
    t.setThreadCpuTimeEnabled(true);
    return t;
  }

  private static void one(Contender contender, ObjectId docId, long opId, RoundPart part) {
    long t0 = System.nanoTime();
    try {
      int attempts = contender.add(docId, opId);
      long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
      part.latencyUs.recordValue(Math.min(Math.max(us, 0), RoundPart.MAX_LATENCY_US));
      part.acked.set(HotDocument.checkedIndex(opId));
      part.attempts += attempts;
    } catch (BudgetExhaustedException e) {
      part.exhausted++;
    } catch (RuntimeException e) {
      part.errors++;
      if (part.errorSample == null) {
        part.errorSample = e.getClass().getSimpleName() + ": " + e.getMessage();
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the bench's clients", e);
    }
  }
}
