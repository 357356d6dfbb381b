package io.writeguard.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import redis.embedded.RedisServer;

/**
 * The Redis that integration tests run against: the server named by {@code REDIS_URI} when it
 * is set, otherwise one embedded redis-server (from the embedded-redis jar) started once per
 * test JVM. {@link #startPrivate()} starts a throwaway server a test may stop.
 *
 * <p>Starts the embedded-redis library directly; switch to {@code EmbeddedRedis} from
 * writeguard-embedded once that exists.
 */
final class TestRedis {
  private static String shared;

  private TestRedis() {}

  /** The connection string of the server under test. */
  static synchronized String uri() {
    String external = System.getenv("REDIS_URI");
    if (external != null && !external.isBlank()) {
      return external;
    }
    if (shared == null) {
      Server server = startPrivate();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
      shared = server.uri();
    }
    return shared;
  }

  /** A redis-server of its own, on a free port; close() stops it. */
  static Server startPrivate() {
    return startOn(freePort());
  }

  /** A fresh, empty redis-server of its own on {@code port} (e.g. to replace one just stopped). */
  static Server startOn(int port) {
    try {
      RedisServer server = RedisServer.newRedisServer()
          .port(port)
          .setting("bind 127.0.0.1")
          .setting("save \"\"")
          .setting("appendonly no")
          .build();
      server.start();
      return new Server(server, "redis://127.0.0.1:" + port, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded redis-server on port " + port, e);
    }
  }

  /** A running embedded server. */
  record Server(RedisServer server, String uri, int port) implements AutoCloseable {
    @Override
    public void close() {
      try {
        server.stop();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
