package io.writeguard.app.readinfo;

import io.writeguard.path.FieldPath;
import io.writeguard.path.InvalidPathException;
import java.util.Objects;

/**
 * The item a mark is for: {@code infos[key][skey][index]} of document {@code docId}. The path
 * segments are validated when the item is made ({@link FieldPath}: non-empty, no {@code $}
 * prefix, no {@code .}, no NUL, index a non-negative integer), so request data can never reach
 * an update as anything but a field name or an array index. Immutable and thread-safe.
 *
 * @param docId the document's {@code _id} (any BSON value: string, ObjectId, number)
 */
public record ReadItem(Object docId, String key, String skey, int index) {

  /**
   * @throws InvalidPathException naming the bad segment (path injection), nothing is written
   * @throws NullPointerException when {@code docId} is null
   */
  public ReadItem {
    Objects.requireNonNull(docId, "docId must not be null");
    itemPath(key, skey, index);
  }

  /**
   * An item whose index comes as text (a request parameter): {@code "0"}, {@code "17"}; not
   * {@code "01"}, {@code "-1"}, {@code "1e3"}.
   *
   * @throws InvalidPathException naming the bad segment
   */
  public static ReadItem parse(Object docId, String key, String skey, String index) {
    FieldPath path = FieldPath.of("infos", key, skey).index(index);
    return new ReadItem(docId, key, skey, Integer.parseInt(path.lastSegment()));
  }

  /** {@code infos.<key>.<skey>.<index>}. */
  public FieldPath itemPath() {
    return itemPath(key, skey, index);
  }

  /** {@code infos.<key>.<skey>.<index>.read}, the list of users who read the item. */
  public FieldPath readPath() {
    return itemPath().field("read");
  }

  private static FieldPath itemPath(String key, String skey, int index) {
    return FieldPath.of("infos", key, skey).index(index);
  }
}
