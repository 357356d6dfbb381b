package io.writeguard.embedded;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;

/**
 * An in-JVM MongoDB wire-protocol server (mongo-java-server, in-memory) on 127.0.0.1.
 *
 * <p>Thread-safe; {@link #close()} stops the server and drops its data.
 */
public final class EmbeddedMongo implements AutoCloseable {
  private final MongoServer server;
  private final String uri;

  private EmbeddedMongo(MongoServer server, InetSocketAddress address) {
    this.server = server;
    this.uri = "mongodb://127.0.0.1:" + address.getPort();
  }

  /** Starts a server on a free port. */
  public static EmbeddedMongo start() {
    return start(0);
  }

  /** Starts a server on {@code port} (0 for a free one). */
  public static EmbeddedMongo start(int port) {
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", port);
    return new EmbeddedMongo(server, server.getLocalAddress());
  }

  /** The connection string, e.g. {@code mongodb://127.0.0.1:40123}. */
  public String uri() {
    return uri;
  }

  @Override
  public void close() {
    server.shutdownNow();
  }
}
