package io.writeguard.app.readinfo;

/**
 * No document has the mark's {@code _id} (never there, or deleted before the write); nothing
 * was written. An HTTP layer answers 404. Immutable and thread-safe.
 */
public final class NoSuchDocumentException extends MarkReadException {
  private static final long serialVersionUID = 1L;

  public NoSuchDocumentException(String collection, ReadItem item) {
    super(item, "no document _id=" + item.docId() + " in " + collection
        + " to mark " + item.itemPath() + " as read; nothing was written");
  }
}
