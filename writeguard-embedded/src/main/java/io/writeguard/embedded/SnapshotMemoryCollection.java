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
import java.util.concurrent.atomic.LongAdder;

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
 * <p>Second patch, for speed: {@link #queryDocuments} answers every filter that pins {@code _id}
 * to one value through the {@code _id} index (see there). The stock collection does that only
 * for a filter that is exactly {@code {_id: value}}, so a versioned write such as {@code
 * updateOne({_id, version})} examined every document of the collection.
 *
 * <p>Thread-safe: every public method is {@code synchronized} on this collection.
 */
final class SnapshotMemoryCollection extends MemoryCollection {
  /** Documents handed to the query matcher so far; tests read it to prove a query used no scan. */
  private final LongAdder documentsExamined = new LongAdder();

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

  /**
   * Looks the candidate up in the {@code _id} index when the filter's top level, or a conjunct of
   * a {@code $and} (nested ones too), requires {@code _id} to equal one plain value ({@code {_id: v}} or
   * {@code {_id: {$eq: v}}}, where {@code v} is neither null, an array nor a regular expression),
   * and then matches the whole filter against that one document. Every document the filter
   * matches has that {@code _id}, and the index finds a stored {@code _id} equal to it the way
   * the stock {@code {_id: v}} lookup does (numbers compared by value, so 7, 7L and 7.0 are one
   * key), so the result is the one the full scan gives. Any other filter takes the stock path
   * (which uses an index only for filters that are exactly the index's keys).
   *
   * <p>Called from the superclasses' {@code synchronized} methods, so the monitor is held.
   */
  @Override
  protected QueryResult queryDocuments(
      Document query,
      Document orderBy,
      int numberToSkip,
      int limit,
      int batchSize,
      Document fieldSelector) {
    Iterable<Integer> candidates = IdLookup.candidates(query, getIdField(), getIndexes());
    if (candidates != null) {
      return matchDocuments(
          query, candidates, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }
    return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
  }

  @Override
  protected boolean documentMatchesQuery(Document document, Document query) {
    documentsExamined.increment();
    return super.documentMatchesQuery(document, query);
  }

  /** How many documents queries on this collection have examined (matched against a filter). */
  long documentsExamined() {
    return documentsExamined.sum();
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
