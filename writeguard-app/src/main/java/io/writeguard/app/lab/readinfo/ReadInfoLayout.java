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
 * <p>4 keys x 2 skeys x 4 items = 32 items per document. Ids are {@code g<generation>-d<slot>}:
 * slot is one of the {@code --docs} hot documents, generation says which of its successive
 * incarnations (see {@link HotDocuments}).
 *
 * <p>Every click is a mark of its own, so a mark that a strategy lost cannot be restored by a
 * later click and hide the loss: client n's first click on an item marks it as user
 * {@code u<n>}, its second click on the same item of the same document as {@code u<n>r1}, its
 * third as {@code u<n>r2}, and so on.
 *
 * <p>A mark is packed into a {@code long} so a run's ledger of millions of acknowledged marks
 * stays a sorted primitive array: generation (26 bits), slot (10), item (5), client (10),
 * repeat (13).
 */
final class ReadInfoLayout {
  static final List<String> KEYS = List.of("k0", "k1", "k2", "k3");
  static final List<String> SKEYS = List.of("s0", "s1");
  static final int ITEMS_PER_LIST = 4;
  static final int ITEMS_PER_DOC = KEYS.size() * SKEYS.size() * ITEMS_PER_LIST;

  /** Hot documents at a time, and clients: the most the mark code has room for. */
  static final int MAX_DOCS = 1 << 10;
  static final int MAX_CLIENTS = 1 << 10;
  /** Generations the mark code has room for. */
  static final long MAX_GENERATIONS = 1L << 26;
  /**
   * Clicks of one client on one item of one document the mark code has room for. A generation
   * has {@code 16 x clients <= 16384} operations over 32 items, so a client would have to click
   * one item a quarter of all of them to run out.
   */
  static final int MAX_REPEATS = 1 << 13;

  private static final Pattern ID = Pattern.compile("g(\\d{1,10})-d(\\d{1,4})");
  private static final Pattern USER = Pattern.compile("u(\\d{1,4})(?:r(\\d{1,4}))?");

  private ReadInfoLayout() {}

  static String docId(long generation, int slot) {
    return "g" + generation + "-d" + slot;
  }

  /** The user id of client {@code client}'s click number {@code repeat + 1} on one item. */
  static String user(int client, int repeat) {
    return repeat == 0 ? "u" + client : "u" + client + "r" + repeat;
  }

  static int item(int key, int skey, int index) {
    return (key * SKEYS.size() + skey) * ITEMS_PER_LIST + index;
  }

  /**
   * The code of one mark.
   *
   * @throws IllegalStateException when the generation or the repeat is beyond the code's room
   */
  static long code(long generation, int slot, int item, int client, int repeat) {
    if (generation >= MAX_GENERATIONS || repeat >= MAX_REPEATS) {
      throw new IllegalStateException("readinfo mark code out of room: generation " + generation
          + " (max " + (MAX_GENERATIONS - 1) + "), repeat " + repeat + " (max "
          + (MAX_REPEATS - 1) + ")");
    }
    return generation << 38 | (long) slot << 28 | (long) item << 23 | (long) client << 13
        | repeat;
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

  /**
   * The client number and repeat of a user id, or null for an id no client makes (a leading
   * zero, a client or repeat beyond the code's room, an explicit {@code r0}).
   */
  static int[] parseUser(Object user) {
    if (!(user instanceof String s)) {
      return null;
    }
    Matcher m = USER.matcher(s);
    if (!m.matches()) {
      return null;
    }
    int client = Integer.parseInt(m.group(1));
    int repeat = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
    if (client >= MAX_CLIENTS || repeat >= MAX_REPEATS || m.group(2) != null && repeat == 0
        || !user(client, repeat).equals(s)) {
      return null;
    }
    return new int[] {client, repeat};
  }
}
