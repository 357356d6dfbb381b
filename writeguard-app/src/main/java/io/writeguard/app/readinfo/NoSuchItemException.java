package io.writeguard.app.readinfo;

/**
 * The document exists but has no item at {@code infos.<key>.<skey>.<i>} (no such key or
 * skey, index past the end of the list, or not a sub-document). A mark never creates an item,
 * so nothing was written. An HTTP layer answers 404. Immutable and thread-safe.
 */
public final class NoSuchItemException extends MarkReadException {
  private static final long serialVersionUID = 1L;

  public NoSuchItemException(String collection, ReadItem item) {
    super(item, "document _id=" + item.docId() + " in " + collection + " has no item "
        + item.itemPath() + "; nothing was written");
  }
}
