package io.writeguard.bench;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * REFERENCE ONLY, WITH NONE OF WRITEGUARD'S GUARANTEES: the least code that batches
 * read-modify-writes of one document on the plain driver, so that every WriteGuard figure can
 * be put next to "what a hand-written combining loop gets on the same server". It is not a
 * peer anyone ships and must not be read as a safe alternative.
 *
 * <p>Callers queue their change on the document's queue; whoever holds the document's
 * {@link ReentrantLock} drains up to {@value #MAX_BATCH} queued changes, does one {@code find},
 * applies them in queue order to that one {@link Document} in memory, and does one
 * {@code replaceOne({_id, version: read}, doc with version read + n)}; then it acknowledges every
 * drained caller. A caller that finds the lock taken parks until its change is done or it is
 * woken to combine: whoever releases the lock wakes the oldest queued caller, so callers never
 * line up on the lock only to find their change already written. On a version miss (another process wrote) it reads again and re-applies the
 * same drained changes, forever: no retry budget, no deadline, no backoff. The version filter
 * is that one compare-and-set and nothing more (no field check, no write-concern handling); any
 * driver error is handed as-is to every drained caller, with no typed errors and no telling an
 * unknown outcome from a failure. A lock and a queue per document id stay in memory for the
 * life of the instance. Thread-safe.
 */
final class FlatCombiningReference implements Contender {
  static final String NAME = "reference-flat-combining";
  static final int MAX_BATCH = 256;

  /** One caller's change and how it ended; written by the combiner before {@code done}. */
  private static final class Change {
    final long opId;
    final Thread caller = Thread.currentThread();
    int attempts;
    RuntimeException failure;
    volatile boolean done;

    Change(long opId) {
      this.opId = opId;
    }
  }

  private static final class Slot {
    final ReentrantLock lock = new ReentrantLock();
    final ConcurrentLinkedQueue<Change> queue = new ConcurrentLinkedQueue<>();
  }

  private final MongoCollection<Document> collection;
  private final ConcurrentHashMap<ObjectId, Slot> slots = new ConcurrentHashMap<>();

  FlatCombiningReference(Backends backends) {
    this(backends.hot());
  }

  FlatCombiningReference(MongoCollection<Document> collection) {
    this.collection = collection;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    Slot slot = slots.computeIfAbsent(docId, id -> new Slot());
    Change mine = new Change(opId);
    slot.queue.add(mine);
    while (!mine.done) {
      if (!slot.lock.tryLock()) {
        LockSupport.park(this); // until our change is done or we are the oldest waiting
        continue;
      }
      try {
        if (!mine.done) {
          combine(docId, slot.queue); // may not reach ours if more than MAX_BATCH are ahead
        }
      } finally {
        slot.lock.unlock();
      }
      Change oldest = slot.queue.peek();
      if (oldest != null) {
        LockSupport.unpark(oldest.caller); // the next combiner
      }
    }
    if (mine.failure != null) {
      throw mine.failure;
    }
    return mine.attempts;
  }

  /** Drains, writes and acknowledges one batch; called with the document's lock held. */
  private void combine(ObjectId docId, ConcurrentLinkedQueue<Change> queue) {
    List<Change> batch = new ArrayList<>();
    for (Change c; batch.size() < MAX_BATCH && (c = queue.poll()) != null; ) {
      batch.add(c);
    }
    int attempts = 0;
    RuntimeException failure = null;
    try {
      boolean written = false;
      while (!written) {
        attempts++;
        Document doc = collection.find(eq("_id", docId)).first();
        if (doc == null) {
          throw new IllegalStateException("no document _id=" + docId);
        }
        long read = ((Number) doc.get(HotDocument.VERSION)).longValue();
        for (Change c : batch) { // each change as every contender makes it on a Document
          doc.put(HotDocument.BITS, HotDocument.bitsWith(doc, c.opId));
        }
        doc.put(HotDocument.VERSION, read + batch.size());
        written = collection.replaceOne(
            and(eq("_id", docId), eq(HotDocument.VERSION, read)), doc).getMatchedCount() == 1;
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    for (Change c : batch) {
      c.attempts = attempts;
      c.failure = failure;
      c.done = true;
      LockSupport.unpark(c.caller);
    }
  }
}
