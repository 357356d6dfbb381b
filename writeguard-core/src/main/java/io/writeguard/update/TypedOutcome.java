package io.writeguard.update;

import io.writeguard.typed.TypedDocuments;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of a successful typed update: the {@link UpdateOutcome} with its document
 * decoded as a {@code T}.
 *
 * <p>The document is decoded when {@link #value()} is called, not when the update returns:
 * the write has happened by then, and a codec failing on the stored result must not look like
 * a failed update (a caller would retry and apply the change twice). Immutable; thread-safe
 * as far as the decoded values are not shared (each call decodes a fresh one).
 *
 * @param <T> the collection's document class
 */
public final class TypedOutcome<T> {
  private final UpdateOutcome outcome;
  private final TypedDocuments<T> documents;

  public TypedOutcome(UpdateOutcome outcome, TypedDocuments<T> documents) {
    this.outcome = Objects.requireNonNull(outcome, "outcome");
    this.documents = Objects.requireNonNull(documents, "documents");
  }

  /** The document after the write (or as read if nothing was written), freshly decoded. */
  public Optional<T> value() {
    return outcome.document().map(documents::decode);
  }

  /** The untyped outcome. */
  public UpdateOutcome untyped() {
    return outcome;
  }

  public Object id() {
    return outcome.id();
  }

  /** See {@link UpdateOutcome#version()}. */
  public long version() {
    return outcome.version();
  }

  public int attempts() {
    return outcome.attempts();
  }

  public Duration elapsed() {
    return outcome.elapsed();
  }

  public boolean written() {
    return outcome.written();
  }

  @Override
  public String toString() {
    return "TypedOutcome{" + documents.type().getSimpleName() + ", " + outcome + "}";
  }
}
