package io.writeguard.update;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * The measuring loop the benchmarks in this package share (they are {@code main}s, not tests):
 * {@code clients} threads released together, each calling an operation in a loop for a fixed
 * time. Besides throughput and latency it reports what the load cost this JVM:
 *
 * <ul>
 *   <li>client threads: heap bytes allocated and CPU time, each thread reading its own
 *       counters ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes},
 *       {@code getCurrentThreadCpuTime}) once released and once done, so exactly the calls'
 *       work is counted (the driver's sync API, the combiner's leader, the lock service all run
 *       on the calling thread);
 *   <li>other threads: the same counters for every other live thread, compared before and
 *       after the run (a thread born during the run counts from zero; one that died during it
 *       is lost): the embedded server's threads when it runs in this JVM, the driver's
 *       background threads;
 *   <li>garbage collection: milliseconds the collectors report for the run.
 * </ul>
 *
 * An operation that throws {@link RetriesExhaustedException} is neither counted nor timed
 * ({@link Result#exhausted()}); any other exception ends the run and is rethrown.
 */
final class BenchLoad {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final int MAX_SAMPLES = 200_000;

  static {
    THREADS.setThreadAllocatedMemoryEnabled(true);
    THREADS.setThreadCpuTimeEnabled(true);
  }

  private BenchLoad() {}

  /** One call of the measured operation by client {@code client} (0-based). */
  interface Op {
    void run(int client) throws Exception;
  }

  /**
   * One run.
   *
   * @param done operations that returned normally (acknowledged)
   * @param exhausted operations that gave up ({@link RetriesExhaustedException})
   */
  record Result(double seconds, long done, long exhausted, double p99Ms, long clientAllocated,
      long clientCpuNanos, long otherAllocated, long otherCpuNanos, long gcMillis) {
    double opsPerSec() {
      return done / seconds;
    }

    /** {@code total} per acknowledged operation (NaN if none). */
    double perDone(double total) {
      return done == 0 ? Double.NaN : total / done;
    }

    double gcPercent() {
      return gcMillis / (seconds * 10);
    }
  }

  /** The median (upper, for an even count) of {@code metric} over {@code results}. */
  static double median(List<Result> results, ToDoubleFunction<Result> metric) {
    double[] v = results.stream().mapToDouble(metric).sorted().toArray();
    return v[v.length / 2];
  }

  static Result measure(int clients, double seconds, Op op) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    AtomicLong done = new AtomicLong();
    AtomicLong exhausted = new AtomicLong();
    AtomicLong allocated = new AtomicLong();
    AtomicLong cpu = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[][] latencies = new long[clients][];
    int[] counts = new int[clients];
    long[] end = new long[1];
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      long[] lat = new long[MAX_SAMPLES];
      latencies[c] = lat;
      Thread t = new Thread(() -> {
        int n = 0;
        try {
          start.await();
          long alloc0 = THREADS.getCurrentThreadAllocatedBytes();
          long cpu0 = THREADS.getCurrentThreadCpuTime();
          try {
            while (System.nanoTime() < end[0] && n < lat.length && failure.get() == null) {
              long t0 = System.nanoTime();
              try {
                op.run(client);
              } catch (RetriesExhaustedException e) {
                exhausted.incrementAndGet();
                continue;
              }
              lat[n++] = System.nanoTime() - t0;
              done.incrementAndGet();
            }
          } finally {
            allocated.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - alloc0);
            cpu.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu0);
            counts[client] = n;
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-client-" + c);
      threads.add(t);
    }
    Set<Long> clientIds = new HashSet<>();
    for (Thread t : threads) {
      t.start();
      clientIds.add(t.getId());
    }
    Map<Long, long[]> before = otherThreads(clientIds);
    long gc0 = gcMillis();
    long t0 = System.nanoTime();
    end[0] = t0 + (long) (seconds * 1e9); // published to the clients by the latch
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long gc = gcMillis() - gc0;
    long otherAlloc = 0;
    long otherCpu = 0;
    for (Map.Entry<Long, long[]> e : otherThreads(clientIds).entrySet()) {
      long[] from = before.getOrDefault(e.getKey(), new long[2]);
      otherAlloc += e.getValue()[0] - from[0];
      otherCpu += e.getValue()[1] - from[1];
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a client failed", failure.get());
    }
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int k = 0;
    for (int c = 0; c < clients; c++) {
      System.arraycopy(latencies[c], 0, all, k, counts[c]);
      k += counts[c];
    }
    Arrays.sort(all);
    double p99 = total == 0 ? 0 : all[(int) Math.min(total - 1, total * 0.99)] / 1e6;
    return new Result(elapsed, done.get(), exhausted.get(), p99, allocated.get(), cpu.get(),
        otherAlloc, otherCpu, gc);
  }

  /** Allocated bytes and CPU nanoseconds of every live thread but {@code excluded}. */
  private static Map<Long, long[]> otherThreads(Set<Long> excluded) {
    long[] ids = THREADS.getAllThreadIds();
    long[] alloc = THREADS.getThreadAllocatedBytes(ids);
    long[] cpu = THREADS.getThreadCpuTime(ids);
    Map<Long, long[]> out = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (!excluded.contains(ids[i]) && alloc[i] >= 0 && cpu[i] >= 0) {
        out.put(ids[i], new long[] {alloc[i], cpu[i]});
      }
    }
    return out;
  }

  private static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }
}
