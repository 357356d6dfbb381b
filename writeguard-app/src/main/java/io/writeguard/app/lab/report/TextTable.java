package io.writeguard.app.lab.report;

import java.util.List;

/** Aligns rows of cells into columns: the first left-aligned, the rest right. Stateless. */
final class TextTable {
  private TextTable() {}

  static String render(List<String[]> rows) {
    int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        String fill = " ".repeat(width[i] - row[i].length());
        out.append(i == 0 ? "" : "  ").append(i == 0 ? row[i] + fill : fill + row[i]);
      }
      out.append(System.lineSeparator());
    }
    return out.toString();
  }
}
