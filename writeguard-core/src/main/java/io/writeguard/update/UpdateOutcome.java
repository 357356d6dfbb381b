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

  UpdateOutcome(
      Object id, Document document, long version, int attempts, Duration elapsed,
      boolean written) {
    this.id = Objects.requireNonNull(id, "id");
    this.document = document;
    this.version = version;
    this.attempts = attempts;
    this.elapsed = Objects.requireNonNull(elapsed, "elapsed");
    this.written = written;
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

  @Override
  public String toString() {
    return "UpdateOutcome{id=" + id + ", version=" + version + ", attempts=" + attempts
        + ", elapsed=" + elapsed.toMillis() + "ms, written=" + written + "}";
  }
}
