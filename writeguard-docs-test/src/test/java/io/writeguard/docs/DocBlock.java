package io.writeguard.docs;

import java.util.List;
import java.util.Set;

/**
 * One {@code ```java} block of a Markdown file: where it is, its fence attributes and its lines.
 *
 * @param file the file, relative to the repository root ({@code docs/locks.md})
 * @param firstLine the line number of the block's first code line
 * @param lines the code, without the fences
 * @param attributes the words after {@code java} on the opening fence ({@code run},
 *     {@code ignore}, {@code id=NAME}, {@code interface=TYPE})
 */
record DocBlock(String file, int firstLine, List<String> lines, List<String> attributes) {
  static final Set<String> FLAGS = Set.of("run", "ignore", "interface");
  static final Set<String> KEYS = Set.of("id", "interface");

  DocBlock {
    lines = List.copyOf(lines);
    attributes = List.copyOf(attributes);
    for (String a : attributes) {
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (a.contains("=") ? !KEYS.contains(name) : !FLAGS.contains(name)) {
        throw new IllegalArgumentException(file + ":" + (firstLine - 1)
            + ": unknown fence attribute '" + a + "' (known: run, ignore, id=NAME, interface[=TYPE])");
      }
    }
  }

  boolean ignored() {
    return attributes.contains("ignore");
  }

  boolean runnable() {
    return attributes.contains("run");
  }

  /** The id a check in {@link BlockSetups} is filed under, or null. */
  String id() {
    return value("id");
  }

  /** Non-null when the block is a list of interface members: the type the interface extends ("" for none). */
  String interfaceOf() {
    if (attributes.contains("interface")) {
      return "";
    }
    return value("interface");
  }

  private String value(String key) {
    for (String a : attributes) {
      if (a.startsWith(key + "=")) {
        return a.substring(key.length() + 1);
      }
    }
    return null;
  }

  /** {@code docs/locks.md:31}: the opening fence's line, as an editor shows it. */
  String where() {
    return file + ":" + (firstLine - 1);
  }
}
