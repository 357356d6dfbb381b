package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.Document;
import org.bson.types.Binary;
import org.bson.types.ObjectId;

/**
 * The seed article's route, ported with its {@link DocumentLocker} (one per process, its
 * "global singleton"): build an {@code ObjectId} from the request's id, {@code acquire},
 * {@code findOne}, change the field in Java, save, {@code release}; {@code release} again in
 * {@code catch}. Mongoose's {@code save()} of a path marked modified is a {@code $set} of that
 * path filtered by {@code _id} alone, which is what the port writes. The article's waits have
 * no bound when {@code release} strands a waiter; the port gives up after the article's 60 s
 * timeout plus two polls and reports an error instead of hanging the bench. Thread-safe.
 */
final class SeedLocked implements Contender {
  static final String NAME = "seed-document-locker";

  private final DocumentLocker locker;
  private final MongoCollection<Document> collection;
  private final Runnable betweenReadAndWrite;

  SeedLocked(Backends backends, DocumentLocker locker, Runnable betweenReadAndWrite) {
    this.locker = locker;
    this.collection = backends.hot();
    this.betweenReadAndWrite = betweenReadAndWrite;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    ObjectId requestId = new ObjectId(docId.toHexString()); // new Types.ObjectId(data._id)
    try {
      awaitLock(requestId);
      Document doc = collection.find(eq("_id", requestId)).first();
      if (doc == null) {
        throw new IllegalStateException("Document not found: " + requestId);
      }
      byte[] bits = HotDocument.withBit(HotDocument.bitsOf(doc), opId);
      betweenReadAndWrite.run();
      collection.updateOne(eq("_id", requestId), Updates.set(HotDocument.BITS, new Binary(bits)));
      locker.release(requestId);
      return 1;
    } catch (RuntimeException e) {
      locker.release(requestId); // the article's catch: frees the lock even if never had
      throw e;
    }
  }

  private void awaitLock(ObjectId requestId) {
    long bound = DocumentLocker.LOCK_TIMEOUT.toMillis() + 2 * DocumentLocker.POLL_INTERVAL.toMillis();
    try {
      locker.acquire(requestId).get(bound, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the seed's lock", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("seed lock on " + requestId + " never answered in "
          + bound + " ms: release() cancelled this waiter's poll", e);
    }
  }

  @Override
  public void close() {
    locker.close();
  }
}
