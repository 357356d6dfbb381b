package io.writeguard.app.cli;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * The MongoDB a command talks to: the server named by a URI, or an embedded one started for
 * the life of this object. Closing it closes the client and stops an embedded server.
 *
 * <p>Every wait of the client is bounded, so a server that stalls without closing its
 * connections (paused, partitioned) fails operations instead of holding them for as long as
 * it stalls: the connect timeout, the socket read timeout and the pool's checkout wait are
 * all {@code timeout} (a {@code socketTimeoutMS} or {@code connectTimeoutMS} in the URI
 * wins), and server selection waits 3 s unless the URI says otherwise. An operation on a
 * stalled server therefore fails after one read timeout, or two when the driver retries it
 * once (retryable reads and writes), plus server selection. A socket read timeout is a
 * {@code MongoSocketReadTimeoutException}: the library treats a write that ends with it as
 * outcome-unknown and never re-applies it blindly. The driver's client-wide operation timeout
 * ({@code timeoutMS}) is not used: it would also bound a whole cursor, and the audit and the
 * lab's counting read whole collections.
 */
public final class MongoTarget implements AutoCloseable {
  /** The bound of every wait when none is given. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private final MongoClient client;
  private final EmbeddedMongo embedded;
  private final String uri;

  private MongoTarget(MongoClient client, EmbeddedMongo embedded, String uri) {
    this.client = client;
    this.embedded = embedded;
    this.uri = uri;
  }

  /**
   * Connects to {@code uri}, or starts the embedded server when it is null or blank.
   *
   * @throws UsageException naming the URI when it is malformed or no server answers it
   */
  public static MongoTarget open(String uri, int maxPoolSize) {
    return open(uri, maxPoolSize, DEFAULT_TIMEOUT);
  }

  /** The same, with {@code timeout} as the bound of every wait (see the class comment). */
  public static MongoTarget open(String uri, int maxPoolSize, Duration timeout) {
    if (uri == null || uri.isBlank()) {
      EmbeddedMongo server = EmbeddedMongo.start();
      try {
        return new MongoTarget(connect(server.uri(), maxPoolSize, timeout), server, server.uri());
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
    }
    return new MongoTarget(connect(uri, maxPoolSize, timeout), null, uri);
  }

  /**
   * Client settings for {@code connection} with every wait bounded by {@code timeout} (see the
   * class comment). Public so that every client the project builds can use the same bounds.
   */
  public static MongoClientSettings settings(ConnectionString connection, int maxPoolSize,
      Duration timeout) {
    int millis = Math.toIntExact(Checks.positive("timeout", timeout).toMillis());
    return MongoClientSettings.builder()
        .applyConnectionString(connection)
        .applyToClusterSettings(c -> c.serverSelectionTimeout(
            connection.getServerSelectionTimeout() == null ? 3000 : connection.getServerSelectionTimeout(),
            TimeUnit.MILLISECONDS))
        .applyToSocketSettings(s -> s
            .connectTimeout(connection.getConnectTimeout() == null ? millis
                : connection.getConnectTimeout(), TimeUnit.MILLISECONDS)
            .readTimeout(connection.getSocketTimeout() == null ? millis
                : connection.getSocketTimeout(), TimeUnit.MILLISECONDS))
        .applyToConnectionPoolSettings(p -> p
            .maxSize(Math.max(maxPoolSize, 1))
            .maxWaitTime(connection.getMaxWaitTime() == null ? millis
                : connection.getMaxWaitTime(), TimeUnit.MILLISECONDS))
        .build();
  }

  private static MongoClient connect(String uri, int maxPoolSize, Duration timeout) {
    ConnectionString connection;
    try {
      connection = new ConnectionString(uri);
    } catch (IllegalArgumentException e) {
      throw new UsageException("malformed MongoDB URI '" + uri + "': " + e.getMessage(), e);
    }
    MongoClient client = MongoClients.create(settings(connection, maxPoolSize, timeout));
    try {
      client.getDatabase("admin").runCommand(new Document("ping", 1));
    } catch (MongoException e) {
      client.close();
      throw new UsageException("cannot reach MongoDB at '" + redact(uri) + "': " + e.getMessage(), e);
    }
    return client;
  }

  /** Hides a password in a URI before it is printed. */
  static String redact(String uri) {
    return uri.replaceAll("(mongodb(\\+srv)?://[^:/@]+):[^@/]*@", "$1:***@");
  }

  public MongoClient client() {
    return client;
  }

  /** True when this target is the in-JVM server started by {@link #open}. */
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

  /** The server's version string from {@code buildInfo}. */
  public String serverVersion() {
    Document info = client.getDatabase("admin").runCommand(new Document("buildInfo", 1));
    return String.valueOf(info.get("version"));
  }

  @Override
  public void close() {
    client.close();
    if (embedded != null) {
      embedded.close();
    }
  }
}
