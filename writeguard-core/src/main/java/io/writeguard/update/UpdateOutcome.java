package io.writeguard.update;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * The result of a successful versioned update. Immutable and thread-safe (the document is a
 * fresh copy that nothing else references).
 */
public final class UpdateOutcome {
  private final Object id;
  private final Document document;
  private final long version;
  private final int attempts;
  private final Duration elapsed;
  private final boolean written;
  private final int fencedRejections;

  UpdateOutcome(
      Object id, Document document, long version, int attempts, Duration elapsed,
      boolean written) {
    this(id, document, version, attempts, elapsed, written, 0);
  }

  private UpdateOutcome(Object id, Document document, long version, int attempts,
      Duration elapsed, boolean written, int fencedRejections) {
    this.id = Objects.requireNonNull(id, "id");
    this.document = document;
    this.version = version;
    this.attempts = attempts;
    this.elapsed = Objects.requireNonNull(elapsed, "elapsed");
    this.written = written;
    this.fencedRejections = fencedRejections;
  }

  /** This outcome, reached after {@code n} refusals by the fence (and as many fresh locks). */
  UpdateOutcome afterFencedRejections(int n) {
    return n == 0 ? this
        : new UpdateOutcome(id, document, version, attempts, elapsed, written, n);
  }

  /** The document's {@code _id}, as passed to the updater. */
  public Object id() {
    return id;
  }

  /**
   * The document after the write ({@code ReturnDocument.AFTER}), or as read when nothing was
   * written; empty on the {@code updateOne} path, which does not fetch it.
   */
  public Optional<Document> document() {
    return Optional.ofNullable(document);
  }

  /**
   * The version the document has now: the one written, or the one read when nothing was
   * written (0 for a legacy document left as it was).
   */
  public long version() {
    return version;
  }

  /** Attempts made, the successful one included (1 = no conflict). */
  public int attempts() {
    return attempts;
  }

  /** Time from the start of the call to its end, retries and backoff included. */
  public Duration elapsed() {
    return elapsed;
  }

  /** False when the mutator returned {@link Mutation#none()} and nothing was written. */
  public boolean written() {
    return written;
  }

  /**
   * How often a {@link LockedUpdater} found this update refused by the fence (a newer lock
   * holder had claimed the document) and ran it again under a fresh lock; 0 otherwise.
   */
  public int fencedRejections() {
    return fencedRejections;
  }

  @Override
  public String toString() {
    return "UpdateOutcome{id=" + id + ", version=" + version + ", attempts=" + attempts
        + ", elapsed=" + elapsed.toMillis() + "ms, written=" + written
        + (fencedRejections == 0 ? "" : ", fencedRejections=" + fencedRejections) + "}";
  }
}
