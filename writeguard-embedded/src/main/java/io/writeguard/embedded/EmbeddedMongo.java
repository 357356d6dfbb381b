package io.writeguard.embedded;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An in-JVM MongoDB wire-protocol server (mongo-java-server, in-memory) on 127.0.0.1.
 *
 * <p>Unlike a plain {@code new MongoServer(new MemoryBackend())}, every document it returns
 * ({@code find}, {@code getMore}, {@code findAndModify} before and after, {@code aggregate}) is a
 * copy taken under the collection's lock, so no reply can show a half-applied update (see
 * {@link SnapshotMemoryCollection}). What the server cannot do at all (transactions, pipeline
 * updates, TTL expiry, validators, partial indexes) is listed in {@code docs/embedded.md}.
 * It reports MongoDB 5.0 with wire version 13 ({@link ReportedVersion}), so current mongosh and
 * pymongo connect, and no session support, so drivers never start a transaction on it.
 *
 * <p>{@link #start(int, Path)} keeps the data in a directory instead (mongo-java-server's H2
 * backend, {@link SnapshotH2Backend}), with the same snapshot reads; every acknowledged write is
 * committed to the file before the reply, so it survives the process being killed.
 *
 * <p>Thread-safe; {@link #close()} stops the server and drops its data (in memory) or closes the
 * file (with a data directory).
 */
public final class EmbeddedMongo implements AutoCloseable {
  private static final String HOST = "127.0.0.1";

  private final MongoServer server;
  private final int port;

  private EmbeddedMongo(MongoServer server, InetSocketAddress address) {
    this.server = server;
    this.port = address.getPort();
  }

  /** Starts a server on a free port. */
  public static EmbeddedMongo start() {
    return start(0);
  }

  /**
   * Starts a server on {@code port} (0 for a free one).
   *
   * @throws IllegalArgumentException if {@code port} is not within 0..65535
   * @throws IllegalStateException if the port cannot be bound (e.g. it is in use); the message
   *     names the address and the cause
   */
  public static EmbeddedMongo start(int port) {
    checkPort(port);
    return bind(new SnapshotMemoryBackend(), port);
  }

  /** The file the data lives in, inside the data directory given to {@link #start(int, Path)}. */
  public static final String DATA_FILE = "writeguard-mongo.mv.db";

  /**
   * Starts a server on {@code port} (0 for a free one) whose data lives in {@code dataDirectory}
   * (created if missing, with its parents), in the file {@value #DATA_FILE}. A directory
   * written by an earlier server opens with its data; one directory serves one server at a time.
   *
   * @throws IllegalArgumentException if {@code port} is not within 0..65535, or {@code
   *     dataDirectory} is not a directory, cannot be created, cannot be written or is in use by
   *     another server; the message names the path
   * @throws IllegalStateException if the port cannot be bound
   */
  public static EmbeddedMongo start(int port, Path dataDirectory) {
    checkPort(port);
    Path file = dataFile(dataDirectory);
    SnapshotH2Backend backend;
    try {
      backend = new SnapshotH2Backend(file.toString());
    } catch (RuntimeException e) { // MVStoreException: locked by another process, corrupt, ...
      throw new IllegalArgumentException(
          "cannot open the data directory " + dataDirectory + ": " + describe(e), e);
    }
    return bind(backend, port);
  }

  private static Path dataFile(Path dataDirectory) {
    if (Files.exists(dataDirectory) && !Files.isDirectory(dataDirectory)) {
      throw new IllegalArgumentException(
          "the data directory " + dataDirectory + " is not a directory");
    }
    try {
      Files.createDirectories(dataDirectory);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot create the data directory " + dataDirectory + ": " + describe(e), e);
    }
    Path file = dataDirectory.resolve(DATA_FILE);
    if (!Files.isWritable(dataDirectory) || (Files.exists(file) && !Files.isWritable(file))) {
      throw new IllegalArgumentException(
          "the data directory " + dataDirectory + " is not writable");
    }
    return file;
  }

  private static void checkPort(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
    }
  }

  private static EmbeddedMongo bind(MongoBackend backend, int port) {
    MongoServer server = new MongoServer(backend.version(ReportedVersion.MONGO_5_0));
    try {
      server.bind(HOST, port);
    } catch (Exception e) { // netty rethrows the checked BindException undeclared
      // bind() shuts the server down only on a RuntimeException; its event loops would
      // otherwise keep the JVM alive.
      server.shutdownNow();
      throw new IllegalStateException(
          "cannot start embedded MongoDB on " + HOST + ":" + port + ": " + describe(e), e);
    }
    return new EmbeddedMongo(server, server.getLocalAddress());
  }

  /** The port the server listens on (the chosen one when started with port 0). */
  public int port() {
    return port;
  }

  /** The connection string, e.g. {@code mongodb://127.0.0.1:40123}. */
  public String uri() {
    return "mongodb://" + HOST + ":" + port;
  }

  /** Closes client connections, stops the server and drops its data. Idempotent. */
  @Override
  public void close() {
    server.shutdownNow();
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }
}
