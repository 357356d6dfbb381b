package io.writeguard.app.lab.readinfo;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.ClientWorkload;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.ScenarioSettings;
import io.writeguard.app.lab.Verification;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * One strategy's run of {@code readinfo}: hands out operations across the generations of hot
 * documents and, at the end, counts exactly which acknowledged marks the documents hold.
 *
 * <p>Counting: every click is a mark no other click makes (a repeated click carries its repeat
 * in the user id), and every client records the code of each mark the server acknowledged.
 * At the end the documents are read and their marks decoded the same way; {@code expected} is
 * the number of acknowledged operations and {@code visible} the number of them whose mark is
 * in the documents. One operation, one mark, one check: a lost mark cannot be restored by a
 * later click, and the count is independent of the strategy under test. Thread-safe.
 */
final class ReadInfoRun implements ScenarioRun<Mark> {
  /** Operations per client per generation of hot documents (see {@link HotDocuments}). */
  static final int OPS_PER_CLIENT_PER_GENERATION = 16;

  private final MongoCollection<Document> collection;
  private final int docs;
  private final long opsPerGeneration;
  private final HotDocuments hot;
  private final AtomicLong sequence = new AtomicLong();

  ReadInfoRun(MongoCollection<Document> collection, ScenarioSettings settings) {
    this.collection = collection;
    this.docs = settings.docs();
    this.opsPerGeneration = (long) OPS_PER_CLIENT_PER_GENERATION * settings.clients();
    this.hot = new HotDocuments(collection, docs);
    hot.ensure(0);
  }

  int docs() {
    return docs;
  }

  /** The generation the next operation goes to; makes sure its documents exist. */
  long nextGeneration() {
    long generation = sequence.getAndIncrement() / opsPerGeneration;
    hot.ensure(generation);
    return generation;
  }

  @Override
  public ClientWorkload<Mark> client(int index, long seed) {
    return new ReadInfoClient(this, index, seed);
  }

  @Override
  public Verification verify(List<? extends ClientWorkload<Mark>> clients) {
    LongList all = new LongList();
    for (ClientWorkload<Mark> c : clients) {
      all.addAll(((ReadInfoClient) c).acknowledgedCodes());
    }
    long[] expected = all.sortedDistinct();
    if (expected.length != all.size()) {
      // Every operation has a code of its own; two acknowledged codes alike is a lab bug.
      throw new IllegalStateException((all.size() - expected.length)
          + " acknowledged readinfo operations share a mark code");
    }

    LongList present = new LongList();
    for (Document doc : collection.find()) {
      ReadInfoDocs.collectMarks(doc, present);
    }
    long[] visibleCodes = present.sortedDistinct();

    long visible = 0;
    for (long code : expected) {
      if (Arrays.binarySearch(visibleCodes, code) >= 0) {
        visible++;
      }
    }
    return new Verification(expected.length, visible);
  }
}
