package io.writeguard.app.lab;

import com.mongodb.client.MongoDatabase;
import io.lettuce.core.RedisClient;
import java.util.Objects;
import java.util.Optional;

/**
 * Servers a strategy may use besides its run's collection: the lab's database (for a lock
 * collection of its own) and, when a strategy that needs it was selected, a Redis client.
 * Owned by the command that opened them; a strategy opens connections of its own from them
 * and closes those in {@link Strategy#close()}. Immutable and thread-safe.
 */
public final class LabServices {
  private static final LabServices NONE = new LabServices(null, null);

  private final MongoDatabase database;
  private final RedisClient redis;

  private LabServices(MongoDatabase database, RedisClient redis) {
    this.database = database;
    this.redis = redis;
  }

  /** No services: strategies that need one refuse to start. */
  public static LabServices none() {
    return NONE;
  }

  /** The lab's database, and Redis when {@code redis} is not null. */
  public static LabServices of(MongoDatabase database, RedisClient redis) {
    return new LabServices(Objects.requireNonNull(database, "database"), redis);
  }

  /** The database the run's collections live in. */
  public Optional<MongoDatabase> database() {
    return Optional.ofNullable(database);
  }

  /** The Redis client, when the run selected a strategy that needs Redis. */
  public Optional<RedisClient> redis() {
    return Optional.ofNullable(redis);
  }
}
