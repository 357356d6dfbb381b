package io.writeguard.app.testing;

import io.writeguard.embedded.EmbeddedRedis;

/**
 * The Redis that the app's integration tests run against: the server named by
 * {@code REDIS_URI} when it is set, otherwise one {@link EmbeddedRedis} started once per test
 * JVM and stopped at its exit.
 */
public final class TestRedis {
  private static EmbeddedRedis server;

  private TestRedis() {}

  /** The connection string of the server under test. */
  public static synchronized String uri() {
    String external = System.getenv("REDIS_URI");
    if (external != null && !external.isBlank()) {
      return external;
    }
    if (server == null) {
      server = EmbeddedRedis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server.uri();
  }
}
