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
 * <p>Counting: every client records the code of each mark the server acknowledged. At the
 * end the codes of all clients are sorted and deduplicated (a user who clicked the same item
 * twice made one mark), the documents are read and their marks decoded the same way, and
 * {@code visible} is the number of acknowledged codes found in the documents. Exact, and
 * independent of the strategy under test. Thread-safe.
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
