package io.writeguard.testing;

import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/**
 * A collection whose N-th write is applied by the server and then reported as lost: the
 * caller gets a {@link MongoSocketReadException}, the error a reply lost after sending
 * produces. This is the nastiest fault for a writer: the write happened, and nothing in the
 * error says so. Writes are counted from 1 (a write is any insert, update, replace, delete or
 * bulk write); reads pass through untouched, and collections derived from it
 * ({@code withWriteConcern}, {@code withDocumentClass}...) share its count and faults. Tests run the
 * scenario once with {@link #never()} to count its writes, then once per write index.
 *
 * <p>Thread-safe (the count is atomic), though tests usually drive it from one thread.
 */
public final class ApplyThenFail {
  private static final Set<String> WRITES = Set.of("updateOne", "updateMany", "replaceOne",
      "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete", "insertOne", "insertMany",
      "deleteOne", "deleteMany", "bulkWrite");

  private final int failAt;
  private final int failLast;
  private final boolean interrupt;
  private final AtomicInteger writes = new AtomicInteger();
  private final List<String> log = new CopyOnWriteArrayList<>();

  private ApplyThenFail(int failAt, int failLast, boolean interrupt) {
    this.failAt = failAt;
    this.failLast = failLast;
    this.interrupt = interrupt;
  }

  /** Fails the {@code failAt}-th write (1-based) after applying it. */
  public static ApplyThenFail atWrite(int failAt) {
    return atWrites(failAt, 1);
  }

  /**
   * Fails {@code count} writes in a row from the {@code failAt}-th on, each after applying it
   * (a re-send of the same write then fails too, as on a server that keeps losing replies).
   */
  public static ApplyThenFail atWrites(int failAt, int count) {
    if (failAt < 1 || count < 1) {
      throw new IllegalArgumentException("failAt and count must be >= 1, were " + failAt
          + " and " + count);
    }
    return new ApplyThenFail(failAt, failAt + count - 1, false);
  }

  /**
   * The {@code failAt}-th write is applied, then the calling thread is interrupted while it
   * waits for the reply: it gets a {@link MongoInterruptedException} with its interrupt flag
   * set, as from the driver. The real driver then refuses every further call of that thread
   * (reads too) until the flag is cleared, so the fault lasts as long as the flag does.
   */
  public static ApplyThenFail interruptedAtWrite(int failAt) {
    if (failAt < 1) {
      throw new IllegalArgumentException("failAt must be >= 1, was " + failAt);
    }
    return new ApplyThenFail(failAt, failAt, true);
  }

  /** Fails nothing; counts the writes. */
  public static ApplyThenFail never() {
    return new ApplyThenFail(Integer.MAX_VALUE, Integer.MAX_VALUE, false);
  }

  /** Writes seen so far, the failed one included. */
  public int writes() {
    return writes.get();
  }

  /** One line per write: its index, method and first argument. */
  public List<String> log() {
    return List.copyOf(log);
  }

  /** True once the failing write has happened. */
  public boolean fired() {
    return writes.get() >= failAt;
  }

  @SuppressWarnings("unchecked")
  public MongoCollection<Document> wrap(MongoCollection<Document> real) {
    return (MongoCollection<Document>) Proxy.newProxyInstance(
        MongoCollection.class.getClassLoader(), new Class<?>[] {MongoCollection.class},
        (proxy, method, args) -> {
          boolean write = WRITES.contains(method.getName());
          int n = write ? writes.incrementAndGet() : 0;
          if (write) {
            log.add(n + " " + method.getName() + " " + (args == null ? "" : args[0]));
          }
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (result instanceof MongoCollection<?> derived) {
            // withDocumentClass, withWriteConcern...: the same collection, so the same faults
            return wrap((MongoCollection<Document>) derived);
          }
          if (write && n >= failAt && n <= failLast && interrupt) {
            Thread.currentThread().interrupt();
            throw new MongoInterruptedException("injected: write " + n + " was applied, then"
                + " the thread was interrupted waiting for its reply", null);
          }
          if (write && n >= failAt && n <= failLast) {
            throw new MongoSocketReadException(
                "injected: write " + n + " was applied, its reply lost", new ServerAddress());
          }
          return result;
        });
  }
}
