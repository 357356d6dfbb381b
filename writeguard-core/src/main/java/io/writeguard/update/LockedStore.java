package io.writeguard.update;

import com.mongodb.client.model.Filters;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * The {@link Store} of one batch that a {@link LockedUpdater} runs while it holds the
 * document's lock. Package-private; made per batch, used on the leader's thread only.
 *
 * <p>Two settings shape every round trip:
 *
 * <ul>
 *   <li><b>Fenced</b> (a {@link FencedWriter} is given): the read is a
 *       {@linkplain FencedWriter#claim claim}, which raises the document's fence to the lock's
 *       token as it reads, and every write is filtered on the fence and raises it. A write the
 *       fence refuses throws {@code StaleLockException} (nothing written). When the writes are
 *       also versioned the claim raises the version as well: a replacing writer that read the
 *       document before the claim then misses instead of writing the old fence back.
 *   <li><b>Versioned</b>: the batch's write filters on the version read, as an optimistic
 *       update does, so a writer that bypasses the lock is never erased (its write shows up as
 *       a conflict, and the round re-reads). Unversioned, the version read is dropped from the
 *       filter: the lock and the fence alone guard the write (the version is still written).
 *       That is how the seed's lock writes, and how the lab writes, so that a broken lock shows
 *       up as lost updates rather than as conflicts absorbed by a second check.
 * </ul>
 */
final class LockedStore implements Store {
  private final MongoStore plain;
  private final Object id;
  private final LockHandle lock;
  private final FencedWriter writer; // null: unfenced
  private final Bson claimUpdate;     // the claim's own update (raising the version), or null
  private final boolean versioned;
  private final Codec<Document> documentCodec;

  LockedStore(MongoStore plain, Object id, LockHandle lock, FencedWriter writer,
      Bson claimUpdate, boolean versioned) {
    this.plain = plain;
    this.id = id;
    this.lock = lock;
    this.writer = writer;
    this.claimUpdate = claimUpdate;
    this.versioned = versioned;
    this.documentCodec = plain.codecRegistry().get(Document.class);
  }

  @Override
  public String collectionName() {
    return plain.collectionName();
  }

  @Override
  public CodecRegistry codecRegistry() {
    return plain.codecRegistry();
  }

  @Override
  public RawBsonDocument read(Object readId) {
    if (writer == null) {
      return plain.read(readId);
    }
    Optional<Document> claimed = claimUpdate == null
        ? writer.claim(lock, readId)
        : writer.findOneAndUpdate(lock, readId, claimUpdate);
    return claimed.map(d -> new RawBsonDocument(d, documentCodec)).orElse(null);
  }

  @Override
  public RawBsonDocument probe(Object probeId, String versionField) {
    return plain.probe(probeId, versionField);
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    Bson match = match(filter);
    if (writer == null) {
      return plain.update(match, update, returnAfter);
    }
    if (returnAfter) {
      return result(writer.findOneAndUpdate(lock, id, match, update));
    }
    return result(writer.updateOne(lock, id, match, update));
  }

  @Override
  public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
    Bson match = match(filter);
    if (writer == null) {
      return plain.replace(match, replacement, returnAfter);
    }
    // The batch's replacement may carry _id as a BsonValue; the writer keeps the stored _id.
    Document withoutId = new Document(replacement);
    withoutId.remove("_id");
    if (returnAfter) {
      return result(writer.findOneAndReplace(lock, id, match, withoutId));
    }
    return result(writer.replaceOne(lock, id, match, withoutId));
  }

  /**
   * What the write matches besides the fence. The batch's filter is {@code _id} and the
   * version read; unversioned, {@code _id} alone. The fenced writer adds {@code _id} itself.
   */
  private Bson match(Bson batchFilter) {
    if (versioned) {
      return batchFilter;
    }
    return writer == null ? Filters.eq("_id", id) : null;
  }

  private static WriteResult result(Optional<Document> after) {
    return after.map(d -> new WriteResult(true, d)).orElse(WriteResult.MISSED);
  }

  private static WriteResult result(FencedWriter.Outcome outcome) {
    return outcome == FencedWriter.Outcome.APPLIED ? new WriteResult(true, null)
        : WriteResult.MISSED;
  }
}
