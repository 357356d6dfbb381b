package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.bson.Document;

/**
 * A reader that keeps reading the balances' totals while the clients write, as a dashboard
 * would, and remembers the lowest total it saw. A sharded counter's total is a sum of shards
 * read together; a layout that lets a reader see less than zero (or a moment where a drain
 * has taken from shards and not yet given back) shows up here, not in the final total.
 *
 * <p>One read per balance about every millisecond, so the reader weighs the same on every
 * strategy. Runs on its own daemon thread from {@link #start} to {@link #stop}; the figures
 * are read after {@code stop}, which joins the thread. A failed read ends the sampling (the
 * run will report the server's failure itself) and is remembered.
 */
final class TotalReader implements Runnable {
  private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final MongoCollection<Document> collection;
  private final Supplier<List<String>> counterIds;
  private volatile boolean stopped;
  private Thread thread;
  // Written by the reader thread, read after join.
  private long reads;
  private long negativeReads;
  private long min = Long.MAX_VALUE;
  private RuntimeException failure;

  /** {@code counterIds}: the balances to read now (the current generation's). */
  TotalReader(MongoCollection<Document> collection, Supplier<List<String>> counterIds) {
    this.collection = collection;
    this.counterIds = counterIds;
  }

  void start() {
    thread = new Thread(this, "lab-counter-reader");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void run() {
    try {
      while (!stopped) {
        for (String id : counterIds.get()) {
          record(CounterTotals.read(collection, id));
        }
        LockSupport.parkNanos(PAUSE_NANOS);
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  private void record(long total) {
    reads++;
    if (total < 0) {
      negativeReads++;
    }
    min = Math.min(min, total);
  }

  /** Stops reading and waits for the reader; safe to call more than once. */
  void stop() {
    stopped = true;
    Thread t = thread;
    if (t == null) {
      return;
    }
    try {
      t.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  long reads() {
    return reads;
  }

  long negativeReads() {
    return negativeReads;
  }

  /** The lowest total read, or {@code Long.MAX_VALUE} when nothing was read. */
  long min() {
    return min;
  }

  RuntimeException failure() {
    return failure;
  }
}
