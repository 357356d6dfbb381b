package io.writeguard.spring;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.redis.RedisLockService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis lease lock, on the Lettuce client of the application's
 * {@link LettuceConnectionFactory} (configured by {@code spring.data.redis.*}): same server,
 * credentials, TLS and client options, and no second client to configure. The lock service
 * opens its own two connections on that client (commands, and pub/sub for release messages)
 * and never shuts the client down; the factory does.
 *
 * <p>Needs writeguard-redis on the classpath; works with a standalone, Sentinel or Redis
 * Cluster factory (on a cluster the lock uses the factory's {@link RedisClusterClient}, and
 * its topology refresh settings decide how soon a failover is followed). The service is a
 * {@link LazyLockService}: it connects and loads its scripts on its first use, so the
 * application starts while Redis is down, and lock calls fail with a
 * {@code LockBackendException} (translated: {@code DataAccessResourceFailureException}) until
 * Redis answers.
 */
@AutoConfiguration(after = WriteGuardAutoConfiguration.class,
    afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({RedisLockService.class, LettuceConnectionFactory.class})
@ConditionalOnBean({LettuceConnectionFactory.class, WriteGuardProperties.class})
@ConditionalOnProperty(prefix = "writeguard.redis-lock", name = "enabled", matchIfMissing = true)
public class WriteGuardRedisAutoConfiguration {

  /** Bean name of the Redis lease lock service. */
  public static final String REDIS_LOCK_SERVICE = "writeGuardRedisLockService";

  @Bean(name = REDIS_LOCK_SERVICE)
  @ConditionalOnMissingBean(RedisLockService.class)
  public LazyLockService writeGuardRedisLockService(LettuceConnectionFactory connectionFactory,
      WriteGuardProperties properties, ObjectProvider<WriteGuardListener> listeners) {
    WriteGuardProperties.RedisLock lock = properties.getRedisLock();
    WriteGuardListener listener = WriteGuardAutoConfiguration.listenersOf(listeners);
    // Connected on first use: the application starts while Redis is down, and lock calls fail
    // with a LockBackendException until it answers.
    return new LazyLockService(RedisLockService.BACKEND,
        () -> connectTo(RedisLockService.builder(), connectionFactory)
            .keyPrefix(lock.getKeyPrefix())
            .lease(lock.getLease())
            .renewInterval(lock.getRenewInterval())
            .commandTimeout(lock.getCommandTimeout())
            .listener(listener)
            .build());
  }

  @Bean
  @ConditionalOnBean(name = REDIS_LOCK_SERVICE)
  @ConditionalOnMissingBean(name = "writeGuardRedisLockStoreProbe")
  public LockStoreProbe writeGuardRedisLockStoreProbe(LettuceConnectionFactory connectionFactory) {
    return new LockStoreProbe() {
      @Override
      public String name() {
        return "redis";
      }

      @Override
      public String check() {
        try (RedisConnection connection = connectionFactory.getConnection()) {
          return "PING " + connection.ping();
        }
      }
    };
  }

  /** Points {@code builder} at the factory's Lettuce client: standalone/Sentinel or Cluster. */
  static RedisLockService.Builder connectTo(RedisLockService.Builder builder,
      LettuceConnectionFactory connectionFactory) {
    if (!connectionFactory.isRunning()) {
      connectionFactory.start(); // what it does itself unless early start-up is switched off
    }
    AbstractRedisClient client = connectionFactory.getRequiredNativeClient();
    if (client instanceof RedisClient standalone) {
      return builder.client(standalone);
    }
    if (client instanceof RedisClusterClient cluster) {
      return builder.clusterClient(cluster);
    }
    throw new IllegalStateException("writeguard.redis-lock needs a Lettuce RedisClient or"
        + " RedisClusterClient, but the application's LettuceConnectionFactory uses a "
        + client.getClass().getName() + "; set writeguard.redis-lock.enabled=false");
  }
}
