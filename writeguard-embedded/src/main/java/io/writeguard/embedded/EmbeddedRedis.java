package io.writeguard.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * A redis-server child process on 127.0.0.1, using the binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar (Redis 6.2 for linux x86_64/arm64 and macOS).
 *
 * <p>Persistence is switched off ({@code save ""}, {@code appendonly no}), so nothing is written
 * to disk and {@link #close()} drops the data. The process is also stopped by a JVM shutdown hook
 * if {@link #close()} is never called, but not if the JVM is killed with SIGKILL.
 *
 * <p>Redis cannot be asked to pick a free port itself (port 0 means "no TCP"), so {@link
 * #start()} asks the OS for a free port, releases it and starts Redis on it; if another process
 * takes the port in between, it retries with a new one.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class EmbeddedRedis implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);
  private static final String HOST = "127.0.0.1";
  private static final int FREE_PORT_ATTEMPTS = 5;

  private final RedisServer server;
  private final int port;

  private EmbeddedRedis(RedisServer server, int port) {
    this.server = server;
    this.port = port;
  }

  /** Starts Redis on a free port. */
  public static EmbeddedRedis start() {
    IllegalStateException last = null;
    for (int attempt = 1; attempt <= FREE_PORT_ATTEMPTS; attempt++) {
      try {
        return start(freePort());
      } catch (IllegalStateException e) {
        last = e; // most likely the port was taken after we released it
      }
    }
    throw new IllegalStateException(
        "cannot start embedded Redis on a free port after " + FREE_PORT_ATTEMPTS + " attempts",
        last);
  }

  /**
   * Starts Redis on {@code port} (0 for a free one).
   *
   * @throws IllegalArgumentException if {@code port} is not within 0..65535
   * @throws IllegalStateException if redis-server does not start (port in use, binary cannot run
   *     on this OS); the message names the address and the cause
   */
  public static EmbeddedRedis start(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
    }
    if (port == 0) {
      return start();
    }
    RedisServer server;
    try {
      server =
          RedisServer.newRedisServer()
              .bind(HOST)
              .port(port)
              .setting("save \"\"")
              .setting("appendonly no")
              // Drain the child's output so it can never block on a full pipe.
              .soutListener(line -> log.debug("redis-server:{} {}", port, line))
              .serrListener(line -> log.warn("redis-server:{} {}", port, line))
              .build();
      server.start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot start embedded Redis on " + HOST + ":" + port + ": " + describe(e), e);
    }
    return new EmbeddedRedis(server, port);
  }

  /** The port Redis listens on. */
  public int port() {
    return port;
  }

  /** The connection string, e.g. {@code redis://127.0.0.1:40124}. */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /** Stops the redis-server process; its data is gone. Idempotent. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded Redis on " + HOST + ":" + port, e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + HOST, e);
    }
  }

  private static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (text.length() > 0) {
        text.append(" <- ");
      }
      text.append(t.getClass().getSimpleName());
      if (t.getMessage() != null) {
        // redis-server's output is multi-line; keep the message on one line.
        text.append(" (").append(t.getMessage().strip().replaceAll("\\s*\\R\\s*", " | "));
        text.append(')');
      }
    }
    return text.toString();
  }
}
