package io.writeguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class EmbeddedRedisTest {

  @Test
  void startsOnAFreePortAndAnswersSetAndGet() throws IOException {
    try (EmbeddedRedis redis = EmbeddedRedis.start();
        Resp resp = new Resp(redis.uri())) {
      assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
      assertThat(resp.call("PING")).isEqualTo("PONG");
      assertThat(resp.call("SET", "greeting", "hello")).isEqualTo("OK");
      assertThat(resp.call("GET", "greeting")).isEqualTo("hello");
      assertThat(resp.call("INCR", "n")).isEqualTo("1");
      assertThat(resp.call("GET", "missing")).isNull();
      assertThat(resp.call("INFO", "server")).contains("redis_version:6.2");
    }
  }

  @Test
  void persistenceIsOff() throws IOException {
    try (EmbeddedRedis redis = EmbeddedRedis.start();
        Resp resp = new Resp(redis.uri())) {
      assertThat(resp.call("CONFIG", "GET", "save")).isEqualTo("[save, ]");
      assertThat(resp.call("CONFIG", "GET", "appendonly")).isEqualTo("[appendonly, no]");
    }
  }

  @Test
  void startsOnAGivenPortAndCloseStopsIt() throws IOException {
    int port = freePort();
    EmbeddedRedis redis = EmbeddedRedis.start(port);
    try (Resp resp = new Resp(redis.uri())) {
      assertThat(redis.port()).isEqualTo(port);
      assertThat(resp.call("PING")).isEqualTo("PONG");
    } finally {
      redis.close();
    }
    redis.close(); // idempotent
    assertThatThrownBy(() -> new Resp(redis.uri()).close()).isInstanceOf(ConnectException.class);
  }

  @Test
  void aPortInUseIsReportedWithThePort() throws IOException {
    try (EmbeddedRedis first = EmbeddedRedis.start()) {
      assertThatThrownBy(() -> EmbeddedRedis.start(first.port()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("127.0.0.1:" + first.port());
    }
  }

  @Test
  void rejectsAPortOutOfRange() {
    assertThatThrownBy(() -> EmbeddedRedis.start(65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be between 0 and 65535, was 65536");
    assertThatThrownBy(() -> EmbeddedRedis.start(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be between 0 and 65535, was -1");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
