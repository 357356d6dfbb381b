package io.writeguard.app.lab.report;

import io.writeguard.app.lab.StrategyResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The scenario-specific figures of a set of results (for {@code counter}: final, expected and
 * lowest total, refused decrements, ...) as a text table, one row per strategy, columns named
 * as in the JSON. Only whole-number figures are shown; per-round lists stay in the JSON.
 * Stateless.
 */
public final class FiguresTable {
  private FiguresTable() {}

  /** The table, or "" when no result has figures. */
  public static String render(List<StrategyResult> results) {
    Set<String> names = new LinkedHashSet<>();
    for (StrategyResult r : results) {
      r.figures().forEach((name, value) -> {
        if (value instanceof Long || value instanceof Integer) {
          names.add(name);
        }
      });
    }
    if (names.isEmpty()) {
      return "";
    }
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("strategy"));
    header.addAll(names);
    rows.add(header.toArray(String[]::new));
    for (StrategyResult r : results) {
      List<String> row = new ArrayList<>(List.of(r.strategy()));
      for (String name : names) {
        Object v = r.figures().get(name);
        row.add(v instanceof Number n ? String.format(Locale.ROOT, "%,d", n.longValue()) : "-");
      }
      rows.add(row.toArray(String[]::new));
    }
    return TextTable.render(rows);
  }
}
