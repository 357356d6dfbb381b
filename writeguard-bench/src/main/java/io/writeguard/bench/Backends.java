package io.writeguard.bench;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.bson.Document;

/**
 * The connections one bench process uses: a MongoDB client on the hot collection, and the
 * Redis URI the Redis contenders open their own clients on. Contenders share the MongoDB
 * client (one connection pool per process, as an application would have), which counts the
 * commands it sends when asked to ({@link #mongoCommandsSent()}: the bench's commands-per-call
 * column). Counting is off by default: with a command listener the driver builds each command
 * and each reply as a document for the event, on the calling thread, at a cost that grows
 * with the bytes sent and received.
 * Thread-safe; {@link #close()} closes the MongoDB client.
 */
final class Backends implements AutoCloseable {
  static final String DATABASE = "writeguard_bench";

  private final MongoClient mongo;
  private final MongoDatabase database;
  private final String collectionName;
  private final String redisUri;
  private final LongAdder commands; // null: not counted

  private Backends(MongoClient mongo, LongAdder commands, String collectionName,
      String redisUri) {
    this.mongo = mongo;
    this.commands = commands;
    this.database = mongo.getDatabase(DATABASE);
    this.collectionName = collectionName;
    this.redisUri = redisUri;
  }

  /** Connects to {@code mongoUri}; {@code redisUri} may be null when no Redis contender runs. */
  static Backends connect(String mongoUri, String collectionName, String redisUri) {
    return connect(mongoUri, collectionName, redisUri, false);
  }

  /** As above; {@code countCommands}: count the commands the MongoDB client sends. */
  static Backends connect(String mongoUri, String collectionName, String redisUri,
      boolean countCommands) {
    Objects.requireNonNull(mongoUri, "mongoUri");
    if (!countCommands) {
      return new Backends(MongoClients.create(mongoUri), null, collectionName, redisUri);
    }
    LongAdder commands = new LongAdder();
    CommandListener counter = new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        commands.increment();
      }
    };
    return connect(mongoUri, counter, collectionName, redisUri, commands);
  }

  /** Connects to {@code mongoUri} with {@code listener} on every command (for tests). */
  static Backends connect(String mongoUri, CommandListener listener, String collectionName,
      String redisUri) {
    return connect(mongoUri, listener, collectionName, redisUri, null);
  }

  private static Backends connect(String mongoUri, CommandListener listener,
      String collectionName, String redisUri, LongAdder commands) {
    MongoClientSettings settings = MongoClientSettings.builder()
        .applyConnectionString(new ConnectionString(mongoUri))
        .addCommandListener(listener)
        .build();
    return new Backends(MongoClients.create(settings), commands, collectionName, redisUri);
  }

  /**
   * Commands the MongoDB client has sent so far (every contender's, and the bench's own), or -1
   * when it does not count them.
   */
  long mongoCommandsSent() {
    return commands == null ? -1 : commands.sum();
  }

  MongoClient mongo() {
    return mongo;
  }

  MongoDatabase database() {
    return database;
  }

  String collectionName() {
    return collectionName;
  }

  MongoCollection<Document> hot() {
    return database.getCollection(collectionName);
  }

  /** The Redis URI; refuses when the run has none. */
  String redisUri(String contender) {
    if (redisUri == null) {
      throw new IllegalStateException(contender + " needs Redis: pass --redis-uri or let the"
          + " bench start its embedded Redis");
    }
    return redisUri;
  }

  @Override
  public void close() {
    mongo.close();
  }
}
