package io.writeguard.app.lab.readinfo;

import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/** Builds, changes and reads {@code readinfo} documents in memory. Stateless. */
final class ReadInfoDocs {
  private ReadInfoDocs() {}

  /** A document with every item unread, at version 0. */
  static Document fresh(String id) {
    Document infos = new Document();
    for (String key : ReadInfoLayout.KEYS) {
      Document skeys = new Document();
      for (String skey : ReadInfoLayout.SKEYS) {
        List<Document> items = new ArrayList<>();
        for (int i = 0; i < ReadInfoLayout.ITEMS_PER_LIST; i++) {
          items.add(new Document("read", new ArrayList<String>()));
        }
        skeys.append(skey, items);
      }
      infos.append(key, skeys);
    }
    return new Document("_id", id).append("version", 0L).append("infos", infos);
  }

  /**
   * Adds the mark's user to the item's {@code read} list of {@code doc} unless it is there,
   * as {@code $addToSet} would (the seed's {@code push} duplicated ids on a repeated click).
   *
   * @return false when the mark was already there
   * @throws IllegalStateException when {@code doc} lacks the item
   */
  static boolean markRead(Document doc, Mark mark) {
    List<Object> read = readList(doc, mark);
    if (read.contains(mark.user())) {
      return false;
    }
    read.add(mark.user());
    return true;
  }

  /**
   * The item's {@code read} list inside {@code doc} (live, not a copy).
   *
   * @throws IllegalStateException when {@code doc} lacks the item
   */
  @SuppressWarnings("unchecked")
  static List<Object> readList(Document doc, Mark mark) {
    Object infos = doc.get("infos");
    Object skeys = infos instanceof Document d ? d.get(mark.key()) : null;
    Object items = skeys instanceof Document d ? d.get(mark.skey()) : null;
    Object item = items instanceof List<?> l && mark.index() < l.size() ? l.get(mark.index()) : null;
    Object read = item instanceof Document d ? d.get("read") : null;
    if (!(read instanceof List<?>)) {
      throw new IllegalStateException("document " + doc.get("_id") + " has no list at infos."
          + mark.key() + "." + mark.skey() + "." + mark.index() + ".read");
    }
    return (List<Object>) read;
  }

  /**
   * Adds the code of every mark {@code doc} holds to {@code into}. Parts of the document the
   * layout never makes (foreign ids, users no client has) are skipped.
   */
  static void collectMarks(Document doc, LongList into) {
    long[] id = ReadInfoLayout.parseDocId(doc.get("_id"));
    if (id == null || !(doc.get("infos") instanceof Document infos)) {
      return;
    }
    for (int k = 0; k < ReadInfoLayout.KEYS.size(); k++) {
      if (!(infos.get(ReadInfoLayout.KEYS.get(k)) instanceof Document skeys)) {
        continue;
      }
      for (int s = 0; s < ReadInfoLayout.SKEYS.size(); s++) {
        if (!(skeys.get(ReadInfoLayout.SKEYS.get(s)) instanceof List<?> items)) {
          continue;
        }
        for (int i = 0; i < Math.min(items.size(), ReadInfoLayout.ITEMS_PER_LIST); i++) {
          if (!(items.get(i) instanceof Document item) || !(item.get("read") instanceof List<?> read)) {
            continue;
          }
          for (Object user : read) {
            int[] made = ReadInfoLayout.parseUser(user);
            if (made != null && id[0] < ReadInfoLayout.MAX_GENERATIONS
                && id[1] < ReadInfoLayout.MAX_DOCS) {
              into.add(ReadInfoLayout.code(id[0], (int) id[1], ReadInfoLayout.item(k, s, i),
                  made[0], made[1]));
            }
          }
        }
      }
    }
  }
}
