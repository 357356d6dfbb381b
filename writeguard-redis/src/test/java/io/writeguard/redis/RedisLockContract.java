package io.writeguard.redis;

import io.lettuce.core.api.sync.RedisHashCommands;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockServiceContract;

/**
 * The lock contract on one Redis set-up (standalone, with or without hand-off, Sentinel,
 * Cluster): a subclass says how its services connect; the contract's lease settings and the
 * takeover behind the service's back are the same everywhere.
 */
abstract class RedisLockContract extends LockServiceContract {

  /** A builder connected to this set-up, with its key prefix and hand-off; no lease settings. */
  protected abstract RedisLockService.Builder connected();

  @Override
  protected final LockService create(LeaseConfig config) {
    RedisLockService.Builder builder = connected()
        .lease(config.lease())
        .listener(config.listener())
        .ticker(config.ticker());
    if (config.renewInterval() == null) {
      builder.withoutWatchdog();
    } else {
      builder.renewInterval(config.renewInterval());
    }
    return builder.build();
  }

  /** Writes another owner into the lock hash of {@code key} (under {@code prefix}). */
  static <C extends RedisHashCommands<String, String> & RedisKeyCommands<String, String>>
      void takeOver(C redis, String prefix, String key) {
    String redisKey = prefix + "{" + key + "}";
    redis.hset(redisKey, "o", "intruder:1");
    redis.pexpire(redisKey, 60_000);
  }
}
