package io.writeguard.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * Prints the checker's rows as a table, one line per fault, workload and strategy, followed by
 * every violation and example, and writes them as JSON. Stateless; thread-safe.
 */
final class ChaosReport {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);
  private static final String FORMAT =
      "%-12s %-8s %-10s %5s %5s %5s %8s %4s %4s %8s %9s %12s  %s%n";

  private ChaosReport() {}

  /**
   * The table, then one line per fault with the longest wait of each strategy against its
   * bound (the deadline + 1 s), the figure a caller's timeout must cover.
   */
  static void printTable(List<ChaosRow> rows, ChaosSettings settings, PrintWriter out) {
    printTable(rows, out);
    java.util.Map<String, java.util.Map<String, Long>> longest = new java.util.LinkedHashMap<>();
    for (ChaosRow r : rows) {
      String where = r.workload().equals(Load.SERVE_WORKLOAD)
          ? r.fault() + " through 3 serve JVMs" : r.fault();
      longest.computeIfAbsent(where, f -> new java.util.LinkedHashMap<>())
          .merge(r.strategy(), r.maxLatencyMillis(), Math::max);
    }
    longest.forEach((fault, byStrategy) -> {
      StringBuilder line = new StringBuilder("longest wait, " + fault + ":");
      byStrategy.forEach((strategy, ms) -> line.append(' ').append(strategy).append(' ')
          .append(ms).append(" ms").append(ms <= settings.bound(strategy).toMillis() ? "" : " (over)")
          .append(','));
      line.setLength(line.length() - 1);
      out.println(line + " (bound " + settings.bound("atomic").toMillis() + " ms = deadline "
          + settings.deadline().toMillis() + " ms + 1 s)");
    });
  }

  static void printTable(List<ChaosRow> rows, PrintWriter out) {
    out.printf(FORMAT, "fault", "workload", "strategy", "ops", "ack", "fail", "unknown", "lost",
        "dup", "max ms", "bound ms", "recover ms", "verdict");
    for (ChaosRow r : rows) {
      out.printf(FORMAT, r.fault(), r.workload(), r.strategy(), r.ops(), r.acknowledged(),
          r.failed(), r.unknown() + "(" + r.unknownApplied() + ")", r.lost(), r.duplicated(),
          r.maxLatencyMillis(), r.overBound() == 0 ? "ok" : r.overBound() + " over",
          recovery(r), r.ok() ? "ok" : "FAIL");
    }
    for (ChaosRow r : rows) {
      String name = r.fault() + "/" + r.workload() + "/" + r.strategy();
      for (String v : r.violations()) {
        out.println("  " + name + ": " + v);
      }
      if (!r.ok() || r.staleRefused() > 0 || r.stalePassed() > 0) {
        for (String e : r.examples()) {
          out.println("  " + name + ": " + e);
        }
      }
      if (r.staleRefused() > 0 || r.stalePassed() > 0) {
        out.println("  " + name + ": paused holder's late write refused by the fence "
            + r.staleRefused() + ", got past it " + r.stalePassed());
      }
      if (r.phantom() > 0 || r.unexplained() > 0 || r.negative() > 0 || r.balanceMismatch()) {
        out.println("  " + name + ": failed-but-applied " + r.phantom() + ", unexplained "
            + r.unexplained() + ", negative steps " + r.negative() + ", balance mismatch "
            + r.balanceMismatch());
      }
    }
    out.flush();
  }

  private static String recovery(ChaosRow r) {
    if (r.recoveryMillis() < 0) {
      return "-";
    }
    String took = r.recoveryMillis() == Long.MAX_VALUE ? "never" : Long.toString(r.recoveryMillis());
    return took + "/" + r.recoveryBoundMillis();
  }

  static void writeJson(List<ChaosRow> rows, ChaosSettings settings, Path file)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("ok", rows.stream().allMatch(ChaosRow::ok));
    ObjectNode s = root.putObject("settings");
    s.put("mongoTimeoutMillis", settings.mongoTimeout().toMillis());
    s.put("leaseMillis", settings.lease().toMillis());
    s.put("lockWaitMillis", settings.lockWait().toMillis());
    s.put("blackHoleMillis", settings.blackHole().toMillis());
    s.put("phaseMillis", settings.phase().toMillis());
    s.put("deadlineMillis", settings.deadline().toMillis());
    s.put("short", settings.shortRun());
    ArrayNode array = root.putArray("rows");
    for (ChaosRow r : rows) {
      ObjectNode node = JSON.valueToTree(r);
      node.put("boundMillis", settings.bound(r.strategy()).toMillis());
      node.put("ok", r.ok());
      array.add(node);
    }
    JSON.writeValue(file.toFile(), root);
  }
}
