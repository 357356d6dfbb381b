package io.writeguard.embedded;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

/**
 * mongo-java-server's H2 backend (documents in an H2 MVStore file), made safe to read while it is
 * written and durable per acknowledged command; the durable counterpart of {@link
 * SnapshotMemoryBackend}.
 *
 * <p>Why: the stock H2 collection has the memory backend's torn reads and more. MVStore keeps the
 * {@link Document} objects it stores in its page cache and hands them out; the collection then
 * updates such a document in place before putting it back, so a reply being encoded, or the
 * MVStore's background writer serialising the page, can see a half-applied update. Here every
 * document that leaves {@link Collection#queryDocuments} (the source of every read, update and
 * delete) is a deep copy, so updates change a copy and put it back whole: a stored document is
 * never modified after it is stored, and whatever holds it sees one version.
 *
 * <p>Durability: the MVStore commits on its own about once a second; a process killed in between
 * loses what was acknowledged since. {@link #handleCommand} therefore commits after every command
 * that changed the store, before the reply is sent. The commit reaches the operating system, not
 * necessarily the disk (no fsync): it survives the process being killed, not a crash of the
 * machine.
 *
 * <p>Thread-safe, like the backend it extends.
 */
final class SnapshotH2Backend extends H2Backend {

  /** Opens (or creates) the store in {@code file}. */
  SnapshotH2Backend(String file) {
    super(MVStore.open(file));
  }

  @Override
  protected MongoDatabase openOrCreateDatabase(String databaseName) {
    return new Database(databaseName, getCursorRegistry());
  }

  /** Runs the command, then commits the store if the command changed it. */
  @Override
  public Document handleCommand(
      Channel channel, String databaseName, String command, Document query) {
    Document reply = SnapshotMemoryBackend.answerHello(command)
        ? SnapshotMemoryBackend.hello(super.handleCommand(channel, databaseName, "ismaster", query))
        : super.handleCommand(channel, databaseName, command, query);
    MVStore store = getMvStore();
    if (store.hasUnsavedChanges()) {
      store.commit();
    }
    return reply;
  }

  /**
   * An H2 database whose collections are {@link Collection}s. An inner class on purpose: the
   * superclass constructor already opens the existing collections, before a field of this class
   * could be set, and the enclosing backend (set before that constructor runs) supplies the store.
   */
  private final class Database extends H2Database {
    // The map names are mongo-java-server's own on-disk layout (H2Database's prefixes), so a
    // directory written by the stock H2 backend opens here and the other way round.
    private static final String DATA_PREFIX = "databases.";
    private static final String META_PREFIX = "meta.";

    Database(String databaseName, CursorRegistry cursorRegistry) {
      super(databaseName, SnapshotH2Backend.this.getMvStore(), cursorRegistry);
    }

    @Override
    protected MongoCollection<Object> openOrCreateCollection(
        String collectionName, CollectionOptions options) {
      MVStore store = SnapshotH2Backend.this.getMvStore();
      String fullName = getFullCollectionNamespace(collectionName);
      MVMap<Object, Document> dataMap = store.openMap(DATA_PREFIX + fullName);
      MVMap<String, Object> metaMap = store.openMap(META_PREFIX + fullName);
      return new Collection(this, collectionName, options, dataMap, metaMap, cursorRegistry);
    }
  }

  /**
   * An H2 collection that hands out copies, so that stored documents are never modified in place
   * (see the class comment), and that looks filters with an {@code _id} equality up in the
   * {@code _id} index ({@link IdLookup}). All callers of {@link #queryDocuments} are the
   * superclasses' {@code synchronized} methods, so the copies are taken under the monitor.
   */
  private static final class Collection extends H2Collection {
    Collection(
        MongoDatabase database,
        String collectionName,
        CollectionOptions options,
        MVMap<Object, Document> dataMap,
        MVMap<String, Object> metaMap,
        CursorRegistry cursorRegistry) {
      super(database, collectionName, options, dataMap, metaMap, cursorRegistry);
    }

    @Override
    protected QueryResult queryDocuments(
        Document query,
        Document orderBy,
        int numberToSkip,
        int limit,
        int batchSize,
        Document fieldSelector) {
      Iterable<Object> candidates = IdLookup.candidates(query, getIdField(), getIndexes());
      QueryResult stored =
          candidates != null
              ? matchDocuments(
                  query, candidates, orderBy, numberToSkip, limit, batchSize, fieldSelector)
              : super.queryDocuments(
                  query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
      // The documents kept for getMore are stored ones too, but those are never changed now.
      List<Document> copies = new ArrayList<>();
      for (Document document : stored) {
        copies.add(document.cloneDeeply());
      }
      return new QueryResult(copies, stored.getCursorId());
    }
  }
}
