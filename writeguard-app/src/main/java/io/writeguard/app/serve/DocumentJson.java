package io.writeguard.app.serve;

import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * A stored document as plain JSON for {@code GET /docs/{id}}: {@code _id} becomes
 * {@code "id"} and every ObjectId a 24-digit hex string, int64 values stay numbers (the
 * version), dates become ISO-8601 strings. Unlike MongoDB's extended JSON, a client needs no
 * {@code $oid} decoding. The fenced lock strategies' {@code _fence} and {@code _fence_redis} fields are left out. Stateless.
 */
final class DocumentJson {
  /** Bookkeeping of the lock strategies (the highest fencing token that wrote), not data. */
  private static final java.util.Set<String> HIDDEN = java.util.Set.of("_fence", "_fence_redis");

  private DocumentJson() {}

  static Map<String, Object> of(Map<String, Object> document) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("id", value(document.get("_id")));
    for (Map.Entry<String, Object> field : document.entrySet()) {
      if (!field.getKey().equals("_id") && !HIDDEN.contains(field.getKey())) {
        json.put(field.getKey(), value(field.getValue()));
      }
    }
    return json;
  }

  @SuppressWarnings("unchecked")
  private static Object value(Object value) {
    if (value instanceof ObjectId id) {
      return id.toHexString();
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> json = new LinkedHashMap<>();
      for (Map.Entry<String, Object> field : ((Map<String, Object>) map).entrySet()) {
        json.put(field.getKey(), value(field.getValue()));
      }
      return json;
    }
    if (value instanceof List<?> list) {
      List<Object> json = new ArrayList<>(list.size());
      for (Object element : list) {
        json.add(value(element));
      }
      return json;
    }
    if (value instanceof Date date) {
      return date.toInstant().toString();
    }
    if (value instanceof Decimal128 decimal) {
      return decimal.toString();
    }
    if (value == null || value instanceof String || value instanceof Number
        || value instanceof Boolean) {
      return value;
    }
    return value.toString();
  }
}
