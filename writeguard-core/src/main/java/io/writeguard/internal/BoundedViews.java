package io.writeguard.internal;

import com.mongodb.client.MongoCollection;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@link Deadline#bounded} and {@link Deadline#boundedWrite} for one collection, keeping the
 * bounded views it made and handing one out again when the bound, in whole milliseconds, is the
 * same. Not API; thread-safe.
 *
 * <p>Why it exists. A bounded view is the collection with a timeout, built afresh for every
 * operation: a copy of the collection and of its timeout settings, about half a kilobyte an
 * operation. Calls that start with the same budget and do not wait (the usual update, which
 * meets nobody) ask for the same few bounds time after time (the time left, some milliseconds
 * less as calls queue or take longer), so a view made for one serves the next. A view is immutable
 * and carries nothing but its timeout, so the one kept is the one a fresh call would build. The
 * views are kept by their bound's last bits ({@value #KEPT} each for reads and for writes, so
 * that neighbouring bounds do not push each other out); one of another bound is built as
 * before and kept in place of the one in its place.
 */
public final class BoundedViews<T> {
  static final int KEPT = 32;

  private final MongoCollection<T> collection;
  private final AtomicReferenceArray<View<T>> reads = new AtomicReferenceArray<>(KEPT);
  private final AtomicReferenceArray<View<T>> writes = new AtomicReferenceArray<>(KEPT);

  public BoundedViews(MongoCollection<T> collection) {
    this.collection = Objects.requireNonNull(collection, "collection");
  }

  /** As {@link Deadline#bounded(MongoCollection)}: for reads and waits. */
  public MongoCollection<T> forRead() {
    return view(reads, false);
  }

  /** As {@link Deadline#boundedWrite(MongoCollection)}: for a write whose outcome must be learned. */
  public MongoCollection<T> forWrite() {
    return view(writes, true);
  }

  private MongoCollection<T> view(AtomicReferenceArray<View<T>> kept, boolean write) {
    long millis = Deadline.boundMillis(write);
    if (millis == Deadline.UNBOUNDED) {
      return collection;
    }
    int place = (int) (millis & (KEPT - 1));
    View<T> known = kept.get(place);
    if (known != null && known.millis == millis) {
      return known.collection;
    }
    View<T> made = new View<>(millis, Deadline.withTimeoutMillis(collection, millis));
    kept.set(place, made);
    return made.collection;
  }

  /** A view and the bound it was made with; immutable, so safe to share once published. */
  private record View<T>(long millis, MongoCollection<T> collection) {}
}
