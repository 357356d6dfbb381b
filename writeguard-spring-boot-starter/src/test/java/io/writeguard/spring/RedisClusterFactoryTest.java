package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.lock.LockBackendException;
import io.writeguard.redis.RedisLockService;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster connection factory gives the lock its {@code RedisClusterClient} (it was
 * refused before the Redis lock supported Cluster). The lock on a real cluster is tested in
 * writeguard-redis; here no cluster answers, so building fails as "cannot reach Redis Cluster".
 */
class RedisClusterFactoryTest {

  @Test
  void aClusterConnectionFactoryIsUsedThroughItsClusterClient() throws Exception {
    int nobody;
    try (ServerSocket socket = new ServerSocket(0)) {
      nobody = socket.getLocalPort();
    }
    LettuceConnectionFactory cluster =
        new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:" + nobody)));
    cluster.setEarlyStartup(false);
    try {
      RedisLockService.Builder builder = WriteGuardRedisAutoConfiguration.connectTo(RedisLockService.builder(), cluster);
      assertThat(builder).isNotNull();
      assertThatThrownBy(builder::build)
          .isInstanceOf(LockBackendException.class)
          .hasMessageContaining("cannot reach Redis")
          .hasMessageContaining("Redis Cluster");
    } finally {
      cluster.destroy();
    }
  }
}
