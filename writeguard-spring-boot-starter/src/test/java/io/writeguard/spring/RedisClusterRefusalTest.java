package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

class RedisClusterRefusalTest {

  @Test
  void aClusterConnectionFactoryIsRefusedWithTheSettingToChange() {
    LettuceConnectionFactory cluster =
        new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:7000")));
    cluster.setEarlyStartup(false);
    try {
      assertThatThrownBy(() -> WriteGuardRedisAutoConfiguration.standaloneClient(cluster))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("RedisClusterClient")
          .hasMessageContaining("writeguard.redis-lock.enabled=false");
    } finally {
      cluster.destroy();
    }
  }
}
