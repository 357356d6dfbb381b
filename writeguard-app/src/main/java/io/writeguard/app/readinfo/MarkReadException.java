package io.writeguard.app.readinfo;

import io.writeguard.WriteGuardException;

/**
 * A mark as read was refused and nothing was written: the document or the item is missing
 * ({@link NoSuchDocumentException}, {@link NoSuchItemException}), or the item is not shaped
 * like one ({@code read} is not an array). Immutable and thread-safe.
 */
public class MarkReadException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final transient ReadItem item;

  public MarkReadException(ReadItem item, String message) {
    super(message);
    this.item = item;
  }

  /** The item the mark was for. */
  public ReadItem item() {
    return item;
  }
}
