package io.writeguard.embedded;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;

/**
 * mongo-java-server's in-memory backend, but every document it hands to a client is a copy
 * taken while the collection's lock is held, and it answers the {@code hello} command.
 *
 * <p>Why it exists: the stock memory backend answers {@code find}, {@code findAndModify} and
 * {@code aggregate} with its live stored documents, and the wire encoder serialises them after
 * the collection lock has been released. A writer that updates the document in place at that
 * moment makes the reader see some fields before and some after the update (a "torn read";
 * measured about 1 in 1,500 reads under load), which breaks compare-and-set on a version field.
 * Real MongoDB never returns a half-applied update. All the work happens in {@link
 * SnapshotMemoryCollection}; this class and {@link SnapshotMemoryDatabase} only make the
 * backend create those collections.
 *
 * <p>{@code hello}: MongoDB answers it since 4.4.2 (and every client that declares a stable API
 * version, Spring Boot's health check, mongosh 2 and the Node.js driver send it); mongo-java-server
 * 1.47.0 knows only its older name {@code isMaster} and answers error 59. See {@link
 * #handleCommand}.
 *
 * <p>Thread-safe, like the backend it extends.
 */
final class SnapshotMemoryBackend extends MemoryBackend {
  private static final String HELLO = "hello";
  private static final String LEGACY_PRIMARY_FIELD = "ismaster";

  @Override
  public MemoryDatabase openOrCreateDatabase(String databaseName) {
    return new SnapshotMemoryDatabase(databaseName, getCursorRegistry());
  }

  /**
   * Answers {@code hello} with the server's {@code isMaster} reply, its {@code ismaster} field
   * renamed {@code isWritablePrimary} (the one difference MongoDB makes between the two replies
   * of a standalone server); passes every other command on. Like MongoDB, the command name is
   * case-sensitive ({@code Hello} stays unknown).
   */
  @Override
  public Document handleCommand(
      Channel channel, String databaseName, String command, Document query) {
    if (!answerHello(command)) {
      return super.handleCommand(channel, databaseName, command, query);
    }
    return hello(super.handleCommand(channel, databaseName, LEGACY_PRIMARY_FIELD, query));
  }

  /** Whether {@code command} is {@code hello}, which the backend answers with {@link #hello}. */
  static boolean answerHello(String command) {
    return HELLO.equals(command);
  }

  /** The {@code hello} reply made of the server's {@code isMaster} reply. */
  static Document hello(Document isMaster) {
    Document hello = new Document("isWritablePrimary", isMaster.get(LEGACY_PRIMARY_FIELD));
    isMaster.forEach(
        (field, value) -> {
          if (!field.equals(LEGACY_PRIMARY_FIELD)) {
            hello.put(field, value);
          }
        });
    return hello;
  }
}
