package io.writeguard.embedded;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;

/**
 * mongo-java-server's in-memory backend, but every document it hands to a client is a copy
 * taken while the collection's lock is held.
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
 * <p>Thread-safe, like the backend it extends.
 */
final class SnapshotMemoryBackend extends MemoryBackend {

  @Override
  public MemoryDatabase openOrCreateDatabase(String databaseName) {
    return new SnapshotMemoryDatabase(databaseName, getCursorRegistry());
  }
}
