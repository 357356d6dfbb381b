package io.writeguard.app.cli;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.writeguard.embedded.EmbeddedRedis;
import java.time.Duration;

/**
 * The Redis a command talks to: the server named by a URI, or an embedded one started for the
 * life of this object. Closing it shuts the client down and stops an embedded server.
 * Thread-safe (the Lettuce client is).
 */
public final class RedisTarget implements AutoCloseable {
  private final RedisClient client;
  private final EmbeddedRedis embedded;
  private final String uri;

  private RedisTarget(RedisClient client, EmbeddedRedis embedded, String uri) {
    this.client = client;
    this.embedded = embedded;
    this.uri = uri;
  }

  /**
   * Checks that {@code uri} is a Redis URI, without connecting.
   *
   * @throws UsageException naming the URI when it is malformed
   */
  public static RedisURI parse(String uri) {
    try {
      RedisURI parsed = RedisURI.create(uri);
      parsed.setTimeout(Duration.ofSeconds(5));
      return parsed;
    } catch (RuntimeException e) {
      throw new UsageException("malformed Redis URI '" + redact(uri) + "': " + e.getMessage(), e);
    }
  }

  /**
   * Connects to {@code uri} and checks it answers {@code PING}, or starts the embedded Redis
   * when it is null or blank.
   *
   * @throws UsageException naming the URI when it is malformed or no server answers it
   */
  public static RedisTarget open(String uri) {
    if (uri == null || uri.isBlank()) {
      EmbeddedRedis server = EmbeddedRedis.start();
      try {
        return new RedisTarget(connect(server.uri()), server, server.uri());
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
    }
    return new RedisTarget(connect(uri), null, uri);
  }

  private static RedisClient connect(String uri) {
    RedisClient client = RedisClient.create(parse(uri));
    // Fail fast while disconnected instead of queueing commands: "Redis down" is a failure.
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .build());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().ping();
    } catch (RedisException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw new UsageException("cannot reach Redis at '" + redact(uri) + "': "
          + rootMessage(e), e);
    }
    return client;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t.getMessage() + ")";
  }

  /** Hides a password in a URI before it is printed. */
  static String redact(String uri) {
    return uri.replaceAll("(rediss?(\\+\\w+)?://)([^@/]*)@", "$1***@");
  }

  public RedisClient client() {
    return client;
  }

  /** True when this target is the embedded server started by {@link #open}. */
  public boolean isEmbedded() {
    return embedded != null;
  }

  /**
   * The URI to connect to, password included: for child processes of this one that connect to
   * the same server (the lab's {@code --processes}); never print it, print {@link #displayUri}.
   */
  public String connectionUri() {
    return uri;
  }

  /** The URI, with any password hidden. */
  public String displayUri() {
    return redact(uri);
  }

  @Override
  public void close() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (embedded != null) {
      embedded.close();
    }
  }
}
