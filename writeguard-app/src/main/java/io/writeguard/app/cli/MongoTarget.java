package io.writeguard.app.cli;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.embedded.EmbeddedMongo;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * The MongoDB a command talks to: the server named by a URI, or an embedded one started for
 * the life of this object. Closing it closes the client and stops an embedded server.
 */
public final class MongoTarget implements AutoCloseable {
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
    if (uri == null || uri.isBlank()) {
      EmbeddedMongo server = EmbeddedMongo.start();
      return new MongoTarget(connect(server.uri(), maxPoolSize), server, server.uri());
    }
    return new MongoTarget(connect(uri, maxPoolSize), null, uri);
  }

  private static MongoClient connect(String uri, int maxPoolSize) {
    ConnectionString connection;
    try {
      connection = new ConnectionString(uri);
    } catch (IllegalArgumentException e) {
      throw new UsageException("malformed MongoDB URI '" + uri + "': " + e.getMessage(), e);
    }
    MongoClientSettings settings = MongoClientSettings.builder()
        .applyConnectionString(connection)
        .applyToClusterSettings(c -> c.serverSelectionTimeout(
            connection.getServerSelectionTimeout() == null ? 3000 : connection.getServerSelectionTimeout(),
            TimeUnit.MILLISECONDS))
        .applyToConnectionPoolSettings(p -> p.maxSize(Math.max(maxPoolSize, 1)))
        .build();
    MongoClient client = MongoClients.create(settings);
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
