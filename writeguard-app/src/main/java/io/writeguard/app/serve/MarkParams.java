package io.writeguard.app.serve;

import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.path.InvalidPathException;
import io.writeguard.path.PathSegments;
import org.bson.types.ObjectId;

/**
 * Turns the route's path parameters into a document id and a validated {@link ReadItem}, or
 * a 400 naming the parameter: {@code id} (24 hex digits), {@code key} and {@code skey}
 * (field names: not empty, no {@code $} prefix, no dot, no NUL, at most
 * {@value PathSegments#MAX_LENGTH} chars) and {@code i} (a canonical non-negative int:
 * {@code 0}, {@code 17}; not {@code 01}, {@code -1}, {@code +1}, {@code 1e3}). Nothing
 * reaches MongoDB before all of them pass. Stateless.
 */
final class MarkParams {
  private MarkParams() {}

  /**
   * The ObjectId written as {@code hex}.
   *
   * @throws ApiException 400 with field {@code id}
   */
  static ObjectId objectId(String hex) {
    if (hex == null || hex.length() != 24 || !ObjectId.isValid(hex)) {
      throw ApiException.badRequest("id", "id must be a 24-digit hex ObjectId, was '"
          + Shown.value(hex) + "'");
    }
    return new ObjectId(hex);
  }

  /**
   * The item {@code infos[key][skey][i]} of document {@code id}.
   *
   * @throws ApiException 400 naming {@code key}, {@code skey} or {@code i}
   */
  static ReadItem item(ObjectId id, String key, String skey, String i) {
    try {
      PathSegments.checkField(key);
    } catch (InvalidPathException e) {
      throw ApiException.badRequest("key", "key: " + e.getMessage());
    }
    try {
      PathSegments.checkField(skey);
    } catch (InvalidPathException e) {
      throw ApiException.badRequest("skey", "skey: " + e.getMessage());
    }
    try {
      PathSegments.checkIndex(i);
    } catch (InvalidPathException e) {
      throw ApiException.badRequest("i", "i: " + e.getMessage());
    }
    return ReadItem.parse(id, key, skey, i);
  }
}
