package io.writeguard.app.readinfo;

import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * Finds and changes an item's {@code read} list in a document held in memory, the way the
 * server's {@code $addToSet} would: a user already there is not added again, and an item
 * that is a sub-document without a {@code read} field gets an empty one. Stateless.
 */
final class ReadLists {
  private ReadLists() {}

  /**
   * Adds {@code user} to the item's list inside {@code doc} unless it is there.
   *
   * @return false when the user was there already (nothing changed)
   * @throws NoSuchItemException when {@code doc} has no sub-document at the item's path
   * @throws MarkReadException when the item's {@code read} is not an array
   */
  static boolean add(Document doc, ReadItem item, String user, String collection) {
    List<Object> read = readList(doc, item, collection);
    if (read.contains(user)) {
      return false;
    }
    read.add(user);
    return true;
  }

  /** The item's {@code read} list inside {@code doc} (live; created empty when missing). */
  @SuppressWarnings("unchecked")
  static List<Object> readList(Document doc, ReadItem item, String collection) {
    Document found = item(doc, item);
    if (found == null) {
      throw new NoSuchItemException(collection, item);
    }
    Object read = found.get("read");
    if (read == null && !found.containsKey("read")) {
      List<Object> fresh = new ArrayList<>();
      found.put("read", fresh);
      return fresh;
    }
    if (!(read instanceof List<?>)) {
      throw new MarkReadException(item, "document _id=" + item.docId() + " in " + collection
          + " has no array at " + item.readPath() + " (found "
          + (read == null ? "null" : read.getClass().getSimpleName()) + "); nothing was written");
    }
    return (List<Object>) read;
  }

  /** The item's sub-document, or null. A list of items may also be stored as {"0": ...}. */
  static Document item(Document doc, ReadItem item) {
    Object infos = doc.get("infos");
    Object skeys = infos instanceof Document d ? d.get(item.key()) : null;
    Object items = skeys instanceof Document d ? d.get(item.skey()) : null;
    Object found = null;
    if (items instanceof List<?> list) {
      found = item.index() < list.size() ? list.get(item.index()) : null;
    } else if (items instanceof Document byIndex) {
      found = byIndex.get(Integer.toString(item.index()));
    }
    return found instanceof Document d ? d : null;
  }
}
