package io.writeguard.bench;

import com.mongodb.client.MongoCollection;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * No protection at all: find, change, replace. Loses updates whenever two clients overlap; the
 * bench runs it only on request ({@code --contenders naive}) and its tests use it to show the
 * loss accounting does count losses.
 *
 * <p>{@value #BOUNDED} is the same with every round trip bounded, as a careful user bounds
 * them: on a collection view with the driver's operation timeout ({@code timeoutMS}) of
 * WriteGuard's default retry deadline. It keeps the one promise WriteGuard's calls carry that
 * plain {@code naive} does not (a stalled server cannot hold a call), so the two rows side by
 * side show what that bound costs. Thread-safe.
 */
final class NaiveFindReplace implements Contender {
  static final String NAME = "naive";
  static final String BOUNDED = "naive-bounded";

  private final String name;
  private final FindAndReplace write;

  NaiveFindReplace(Backends backends, Runnable betweenReadAndWrite) {
    this(NAME, backends.hot(), betweenReadAndWrite);
  }

  private NaiveFindReplace(String name, MongoCollection<Document> collection,
      Runnable betweenReadAndWrite) {
    this.name = name;
    this.write = new FindAndReplace(collection, betweenReadAndWrite);
  }

  /** {@value #BOUNDED}: each operation bounded by the default retry deadline. */
  static NaiveFindReplace bounded(Backends backends) {
    return new NaiveFindReplace(BOUNDED, backends.hot().withTimeout(
        HotDocument.BUDGET.deadline().toMillis(), TimeUnit.MILLISECONDS), () -> {});
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    write.addBit(docId, opId);
    return 1;
  }
}
