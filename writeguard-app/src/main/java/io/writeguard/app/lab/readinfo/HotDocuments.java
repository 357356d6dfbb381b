package io.writeguard.app.lab.readinfo;

import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.Document;

/**
 * The run's hot documents, retired and replaced by fresh ones every {@code opsPerGeneration}
 * operations.
 *
 * <p>Why generations: each client is one user, so a document can hold at most
 * {@code 32 items x clients} marks. Left alone for a whole run, every mark would be clicked
 * many times; a mark that {@code naive} erased would be clicked again and reappear, and its
 * loss would be invisible at the end. Growing the documents instead would make every update
 * slower as the run goes on (the embedded server copies the whole document on each update),
 * so strategies would be compared on documents of different sizes. A generation gives each
 * client about 16 operations on fresh documents: repeats stay rare (but happen, as in the
 * seed), documents stay a few KB, and all clients still hit the same {@code --docs} documents
 * at any moment. An operation in flight while the generation turns finishes on its own
 * document; that dilutes contention for about one operation per client per generation.
 *
 * <p>Thread-safe. Generation {@code g + 1} is created by the first client to reach
 * generation {@code g}, before it times its operation, so clients rarely wait for an insert.
 */
final class HotDocuments {
  private final MongoCollection<Document> collection;
  private final int docs;
  private final ReentrantLock creating = new ReentrantLock();
  /** Generations {@code [0, created)} exist; written only under {@link #creating}. */
  private volatile long created;

  HotDocuments(MongoCollection<Document> collection, int docs) {
    this.collection = collection;
    this.docs = docs;
  }

  /** Makes sure generation {@code generation} exists, and starts on the next one. */
  void ensure(long generation) {
    long wanted = generation + 2;
    if (created >= wanted) {
      return;
    }
    if (created > generation) {
      // Ours exists; create the next one unless another client is already doing it.
      if (creating.tryLock()) {
        try {
          createUpTo(wanted);
        } finally {
          creating.unlock();
        }
      }
      return;
    }
    creating.lock();
    try {
      createUpTo(wanted);
    } finally {
      creating.unlock();
    }
  }

  private void createUpTo(long wanted) {
    while (created < wanted) {
      List<Document> batch = new ArrayList<>(docs);
      for (int slot = 0; slot < docs; slot++) {
        batch.add(ReadInfoDocs.fresh(ReadInfoLayout.docId(created, slot)));
      }
      collection.insertMany(batch);
      created = created + 1;
    }
  }
}
