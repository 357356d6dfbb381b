package io.writeguard.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import com.mongodb.client.MongoCollection;

/**
 * A collection whose every write (counted from 1, across the collections derived from it:
 * {@code withTimeout}, {@code withDocumentClass}...) goes through a test's hook, which decides
 * what happens: send it, send it late, refuse it unsent, send it and then fail. Reads pass
 * through. Thread-safe (the count is atomic).
 */
public final class WriteHook {
  private static final Set<String> WRITES = Set.of("updateOne", "updateMany", "replaceOne",
      "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete", "insertOne", "insertMany",
      "deleteOne", "deleteMany", "bulkWrite");

  /** What a test does with write number {@code n}; {@code send} sends it for real. */
  @FunctionalInterface
  public interface Hook {
    Object write(int n, Callable<Object> send) throws Throwable;
  }

  private final Hook hook;
  private final AtomicInteger writes = new AtomicInteger();

  public WriteHook(Hook hook) {
    this.hook = hook;
  }

  /** Writes seen so far. */
  public int writes() {
    return writes.get();
  }

  @SuppressWarnings("unchecked")
  public MongoCollection<Document> wrap(MongoCollection<?> real) {
    return (MongoCollection<Document>) Proxy.newProxyInstance(
        MongoCollection.class.getClassLoader(), new Class<?>[] {MongoCollection.class},
        (proxy, method, args) -> {
          Callable<Object> send = () -> {
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause() instanceof Exception x ? x : new RuntimeException(e.getCause());
            }
          };
          if (WRITES.contains(method.getName())) {
            return hook.write(writes.incrementAndGet(), send);
          }
          Object result = send.call();
          return result instanceof MongoCollection<?> derived ? wrap(derived) : result;
        });
  }
}
