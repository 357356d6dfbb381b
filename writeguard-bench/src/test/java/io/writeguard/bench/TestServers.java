package io.writeguard.bench;

import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.embedded.EmbeddedRedis;
import org.bson.types.ObjectId;

/**
 * The servers the bench's tests run on: one embedded MongoDB and one embedded redis-server per
 * test JVM, started on first use and stopped at exit; each caller gets backends on a
 * collection of its own.
 */
final class TestServers {
  private static EmbeddedMongo mongo;
  private static EmbeddedRedis redis;

  private TestServers() {}

  static synchronized String mongoUri() {
    if (mongo == null) {
      mongo = EmbeddedMongo.start();
      Runtime.getRuntime().addShutdownHook(new Thread(mongo::close));
    }
    return mongo.uri();
  }

  static synchronized String redisUri() {
    if (redis == null) {
      redis = EmbeddedRedis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(redis::close));
    }
    return redis.uri();
  }

  /** Backends on a fresh collection, counting their MongoDB commands; the caller closes them. */
  static Backends backends() {
    return Backends.connect(mongoUri(), "hot_" + new ObjectId(), redisUri(), true);
  }
}
