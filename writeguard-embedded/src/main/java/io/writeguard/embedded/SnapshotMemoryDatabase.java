package io.writeguard.embedded;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;

/**
 * An in-memory database whose collections are {@link SnapshotMemoryCollection}s (see {@link
 * SnapshotMemoryBackend} for why). Thread-safe, like the database it extends.
 */
final class SnapshotMemoryDatabase extends MemoryDatabase {

  SnapshotMemoryDatabase(String databaseName, CursorRegistry cursorRegistry) {
    super(databaseName, cursorRegistry);
  }

  @Override
  protected MemoryCollection openOrCreateCollection(
      String collectionName, CollectionOptions options) {
    return new SnapshotMemoryCollection(this, collectionName, options, cursorRegistry);
  }
}
