package io.writeguard.app.lab.readinfo;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fixed shape of a {@code readinfo} document and the names the scenario uses.
 *
 * <pre>{@code
 * { _id: "g12-d0", version: 0L,
 *   infos: { k0: { s0: [ {read: ["u3", "u7"]}, {read: []}, {read: []}, {read: []} ],
 *                  s1: [ ... ] },
 *            k1: ..., k2: ..., k3: ... } }
 * }</pre>
 *
 * <p>4 keys x 2 skeys x 4 items = 32 items per document; user {@code u<n>} is client n.
 * Ids are {@code g<generation>-d<slot>}: slot is one of the {@code --docs} hot documents,
 * generation says which of its successive incarnations (see {@link HotDocuments}).
 *
 * <p>A mark is packed into a {@code long} so a run's ledger of millions of acknowledged marks
 * stays a sorted primitive array: generation (32 bits), slot (10), item (8), user (14).
 */
final class ReadInfoLayout {
  static final List<String> KEYS = List.of("k0", "k1", "k2", "k3");
  static final List<String> SKEYS = List.of("s0", "s1");
  static final int ITEMS_PER_LIST = 4;
  static final int ITEMS_PER_DOC = KEYS.size() * SKEYS.size() * ITEMS_PER_LIST;

  /** Hot documents at a time, and clients: the most the mark code has room for. */
  static final int MAX_DOCS = 1 << 10;
  static final int MAX_CLIENTS = 1 << 14;

  private static final Pattern ID = Pattern.compile("g(\\d{1,10})-d(\\d{1,4})");
  private static final Pattern USER = Pattern.compile("u(\\d{1,5})");

  private ReadInfoLayout() {}

  static String docId(long generation, int slot) {
    return "g" + generation + "-d" + slot;
  }

  static String user(int client) {
    return "u" + client;
  }

  static int item(int key, int skey, int index) {
    return (key * SKEYS.size() + skey) * ITEMS_PER_LIST + index;
  }

  static long code(long generation, int slot, int item, int user) {
    return generation << 32 | (long) slot << 22 | (long) item << 14 | user;
  }

  /** The generation and slot of a document id, or null for an id this layout never makes. */
  static long[] parseDocId(Object id) {
    if (!(id instanceof String s)) {
      return null;
    }
    Matcher m = ID.matcher(s);
    if (!m.matches()) {
      return null;
    }
    return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
  }

  /** The client number of a user id, or -1 for an id no client has. */
  static int parseUser(Object user) {
    if (!(user instanceof String s)) {
      return -1;
    }
    Matcher m = USER.matcher(s);
    if (!m.matches()) {
      return -1;
    }
    int n = Integer.parseInt(m.group(1));
    return n < MAX_CLIENTS ? n : -1;
  }
}
