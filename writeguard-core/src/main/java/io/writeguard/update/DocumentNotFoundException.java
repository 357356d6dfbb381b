package io.writeguard.update;

import java.time.Duration;

/**
 * The document to update does not exist: it was never there, or it was deleted between the
 * read and the write (told apart from a version conflict by one extra read of {@code _id} and
 * version). Not retried; nothing was written. Immutable and thread-safe.
 */
public class DocumentNotFoundException extends UpdateFailedException {
  private static final long serialVersionUID = 1L;

  public DocumentNotFoundException(
      String collection, Object key, int attempts, Duration elapsed, boolean deletedMeanwhile) {
    super(collection, key, attempts, elapsed, deletedMeanwhile
        ? "found no document: it was deleted after it was read; nothing was written"
        : "found no document with that _id; nothing was written", null);
  }
}
