package io.writeguard.embedded;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.QueryParameters;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory collection that never lets a stored document leave its lock.
 *
 * <p>Why: the stock collection returns the very {@link Document} objects it stores, and the
 * server encodes them onto the socket after the collection's monitor has been released. Updates
 * change stored documents in place, field by field, under that monitor, so an encoder running
 * at the same time can send a mix of old and new fields. Here every document that can reach a
 * client is deep-copied while the monitor is still held, so a reply is always one consistent
 * version of the document, as on a real MongoDB.
 *
 * <p>Where the copies are taken (all methods run under {@code this} monitor, which the
 * superclasses' {@code synchronized} methods hold, so copying here is atomic with respect to
 * every writer of this collection):
 *
 * <ol>
 *   <li>{@link #handleQuery}: the entry point of {@code find}, legacy queries, the input of
 *       {@code aggregate} (including {@code $lookup} into another collection), and the lookups
 *       inside {@code findAndModify} and {@code delete}. Its first batch is returned as copies.
 *   <li>{@link #createCursor}: the documents kept for later {@code getMore} calls are copied
 *       when the cursor is made, not when the batch is sent.
 *   <li>{@link #findAndModify}: its {@code value} is copied (an upsert returns the document it
 *       has just stored).
 *   <li>{@link #handleDistinct}: distinct values can be sub-documents of stored documents.
 * </ol>
 *
 * <p>Because {@code findAndModify} now finds a copy, the superclass applies its update to that
 * copy; {@link #handleUpdate} (the hook the server's persistent backends use to write an update
 * back to storage) copies the result into the stored document. Plain {@code update} commands
 * work on the stored documents directly, so for them the hook has nothing to do.
 *
 * <p>Thread-safe: every public method is {@code synchronized} on this collection.
 */
final class SnapshotMemoryCollection extends MemoryCollection {

  SnapshotMemoryCollection(
      MongoDatabase database,
      String collectionName,
      CollectionOptions options,
      CursorRegistry cursorRegistry) {
    super(database, collectionName, options, cursorRegistry);
  }

  @Override
  public synchronized QueryResult handleQuery(QueryParameters queryParameters) {
    QueryResult live = super.handleQuery(queryParameters);
    return new QueryResult(copiesOf(live), live.getCursorId());
  }

  @Override
  protected Cursor createCursor(List<Document> remainingDocuments) {
    // Called from inside handleQuery, so the monitor is held.
    return super.createCursor(copiesOf(remainingDocuments));
  }

  @Override
  public synchronized Document findAndModify(Document query) {
    Document result = super.findAndModify(query);
    Object value = result.get("value");
    if (value instanceof Document) {
      result.put("value", ((Document) value).cloneDeeply());
    }
    return result;
  }

  @Override
  public synchronized Document handleDistinct(Document query) {
    return super.handleDistinct(query).cloneDeeply();
  }

  @Override
  protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
    // Called from inside findAndModify/updateDocuments, so the monitor is held.
    Document stored = getDocument(position);
    if (stored != newDocument) {
      stored.clear();
      newDocument.cloneInto(stored);
    }
  }

  private static List<Document> copiesOf(Iterable<Document> documents) {
    List<Document> copies = new ArrayList<>();
    for (Document document : documents) {
      copies.add(document.cloneDeeply());
    }
    return copies;
  }
}
