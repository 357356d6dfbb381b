package io.writeguard.spring;

import io.writeguard.embedded.EmbeddedRedis;
import io.writeguard.testing.TestMongo;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The servers the starter's tests run against: MongoDB from {@link TestMongo} ({@code
 * MONGODB_URI} or the embedded server), Redis from {@code REDIS_URI} or one embedded
 * redis-server per test JVM, stopped when the JVM exits. Thread-safe.
 */
public final class TestServers {
  private static final AtomicInteger databases = new AtomicInteger();
  private static String redisUri;

  private TestServers() {}

  /** The MongoDB connection string. */
  public static String mongoUri() {
    return TestMongo.uri();
  }

  /** A database name no other test of this JVM uses. */
  public static String freshDatabase(String hint) {
    return "wg_spring_" + hint + "_" + databases.incrementAndGet();
  }

  /** The Redis connection string, e.g. {@code redis://127.0.0.1:40124}. */
  public static synchronized String redisUri() {
    String external = System.getenv("REDIS_URI");
    if (external != null && !external.isBlank()) {
      return external;
    }
    if (redisUri == null) {
      EmbeddedRedis redis = EmbeddedRedis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(redis::close));
      redisUri = redis.uri();
    }
    return redisUri;
  }
}
