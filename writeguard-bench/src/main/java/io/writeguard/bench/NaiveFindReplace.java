package io.writeguard.bench;

import org.bson.types.ObjectId;

/**
 * No protection at all: find, change, replace. Loses updates whenever two clients overlap; the
 * bench runs it only on request ({@code --contenders naive}) and its tests use it to show the
 * loss accounting does count losses. Thread-safe.
 */
final class NaiveFindReplace implements Contender {
  static final String NAME = "naive";

  private final FindAndReplace write;

  NaiveFindReplace(Backends backends, Runnable betweenReadAndWrite) {
    this.write = new FindAndReplace(backends.hot(), betweenReadAndWrite);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    write.addBit(docId, opId);
    return 1;
  }
}
