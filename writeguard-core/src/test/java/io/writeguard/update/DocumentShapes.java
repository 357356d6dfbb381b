package io.writeguard.update;

import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.bson.Document;
import org.bson.types.Binary;

/**
 * A decoded document as a string to compare: values, their Java classes and the order of keys,
 * so that two copies compare equal only when a caller could not tell them apart.
 */
final class DocumentShapes {
  private DocumentShapes() {}

  /** Keys in their order. */
  static String describe(Object value) {
    return describe(value, true);
  }

  /** {@code inOrder} false: the keys of each document sorted by name. */
  static String describe(Object value, boolean inOrder) {
    if (value instanceof Document d) {
      return d.entrySet().stream()
          .sorted(inOrder ? (a, b) -> 0 : Map.Entry.comparingByKey())
          .map(e -> e.getKey() + "=" + describe(e.getValue(), inOrder))
          .collect(Collectors.joining(", ", "{", "}"));
    }
    if (value instanceof List<?> list) {
      return list.stream().map(v -> describe(v, inOrder))
          .collect(Collectors.joining(", ", value.getClass().getSimpleName() + "[", "]"));
    }
    if (value instanceof byte[] bytes) {
      return "byte[]" + Arrays.toString(bytes);
    }
    if (value instanceof Binary binary) {
      return "Binary(" + binary.getType() + ")" + Arrays.toString(binary.getData());
    }
    if (value instanceof Date date) {
      return "Date(" + date.getTime() + ")";
    }
    return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
  }
}
