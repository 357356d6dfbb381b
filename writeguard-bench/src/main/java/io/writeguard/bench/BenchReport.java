package io.writeguard.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The bench's table (plain text, aligned) and its JSON. The last column says whether a
 * contender lost acknowledged updates. Each WriteGuard contender is compared
 * with its peer: {@code x peer} is its median throughput over the peer's, {@code p99 x peer}
 * its median p99 over the peer's (below 1 is better). {@code x ref} is throughput over the
 * flat-combining reference's, {@code x atomic} over the atomic ceiling's. {@code alloc B/call}
 * and {@code cpu us/call} are what the client threads allocated and spent per call,
 * {@code cmds/call} the MongoDB commands sent per call. Stateless.
 */
final class BenchReport {
  private BenchReport() {}

  static String table(Bench.Result result) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"contender", "acked", "lost", "exhausted", "errors", "retries",
        "ops/s", "p50 ms", "p99 ms", "alloc B/call", "cpu us/call", "cmds/call", "peer", "x peer",
        "p99 x peer", "x ref", "x atomic", "verdict"});
    for (ContenderSummary s : result.summaries()) {
      Optional<ContenderSummary> peer = peer(result, s);
      Optional<ContenderSummary> ref = find(result, FlatCombiningReference.NAME);
      Optional<ContenderSummary> atomic = find(result, AtomicInc.NAME);
      rows.add(new String[] {s.contender(), Long.toString(s.acked()), Long.toString(s.lost()),
          Long.toString(s.exhausted()), Long.toString(s.errors()), Long.toString(s.retries()),
          fmt("%.0f", s.throughputOpsS()), fmt("%.1f", s.p50Ms()), fmt("%.1f", s.p99Ms()),
          s.allocBytesPerCall() < 0 ? "-" : fmt("%.0f", s.allocBytesPerCall()),
          s.cpuUsPerCall() < 0 ? "-" : fmt("%.1f", s.cpuUsPerCall()),
          s.mongoCommandsPerCall() < 0 ? "-" : fmt("%.3f", s.mongoCommandsPerCall()),
          peer.map(ContenderSummary::contender).orElse("-"),
          peer.map(p -> ratio(s.throughputOpsS(), p.throughputOpsS())).orElse("-"),
          peer.map(p -> ratio(s.p99Ms(), p.p99Ms())).orElse("-"),
          ref.map(r -> ratio(s.throughputOpsS(), r.throughputOpsS())).orElse("-"),
          atomic.map(a -> ratio(s.throughputOpsS(), a.throughputOpsS())).orElse("-"),
          verdict(s)});
    }
    return align(rows);
  }

  static Map<String, Object> json(Bench.Result result, Map<String, Object> servers) {
    Map<String, Object> out = new LinkedHashMap<>();
    Bench.Settings s = result.settings();
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("contenders", s.contenders());
    settings.put("clients", s.clients());
    settings.put("processes", s.processes());
    settings.put("rounds", s.rounds());
    settings.put("warmup_ms", s.warmup().toMillis());
    settings.put("duration_ms", s.duration().toMillis());
    settings.put("documents", s.perClientDocuments() ? BenchMain.PER_CLIENT : BenchMain.ONE);
    settings.put("collection_docs", s.collectionDocs());
    settings.put("pad_bytes", s.padBytes());
    out.put("settings", settings);
    out.put("servers", servers);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ContenderSummary c : result.summaries()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("contender", c.contender());
      row.put("acknowledged", c.acked());
      row.put("lost_updates", c.lost());
      row.put("written_not_acknowledged", c.writtenNotAcked());
      row.put("exhausted", c.exhausted());
      row.put("errors", c.errors());
      row.put("retries", c.retries());
      row.put("throughput_ops_s", round(c.throughputOpsS()));
      Map<String, Object> latency = new LinkedHashMap<>();
      latency.put("p50", c.p50Ms());
      latency.put("p99", c.p99Ms());
      latency.put("max", c.maxMs());
      row.put("latency_ms", latency);
      row.put("throughput_by_round", c.throughputByRound());
      row.put("alloc_bytes_per_call", round(c.allocBytesPerCall()));
      row.put("cpu_us_per_call", round(c.cpuUsPerCall()));
      row.put("mongo_commands_per_call", Math.round(c.mongoCommandsPerCall() * 1000) / 1000.0);
      peer(result, c).ifPresent(p -> {
        row.put("peer", p.contender());
        row.put("throughput_vs_peer", round(c.throughputOpsS() / p.throughputOpsS()));
        row.put("p99_vs_peer", round(c.p99Ms() / p.p99Ms()));
      });
      find(result, FlatCombiningReference.NAME).ifPresent(r ->
          row.put("throughput_vs_reference", round(c.throughputOpsS() / r.throughputOpsS())));
      find(result, AtomicInc.NAME).ifPresent(a ->
          row.put("throughput_vs_atomic", round(c.throughputOpsS() / a.throughputOpsS())));
      row.put("verdict", verdict(c));
      row.put("error_sample", c.errorSample());
      rows.add(row);
    }
    out.put("results", rows);
    out.put("rounds", result.rounds());
    return out;
  }

  /**
   * "ok", or how many acknowledged updates were lost: a contender that loses updates is fast
   * because it skips the work, and its row must not read like a win.
   */
  static String verdict(ContenderSummary s) {
    if (s.lost() == 0) {
      return "ok";
    }
    return fmt("LOSES UPDATES (%.0f%% of acked)", 100.0 * s.lost() / s.acked());
  }

  private static Optional<ContenderSummary> peer(Bench.Result result, ContenderSummary s) {
    return Contenders.peerOf(s.contender()).flatMap(name -> find(result, name));
  }

  private static Optional<ContenderSummary> find(Bench.Result result, String name) {
    return result.summaries().stream().filter(c -> c.contender().equals(name)).findFirst();
  }

  private static String ratio(double ours, double theirs) {
    return theirs > 0 ? fmt("%.2fx", ours / theirs) : "-";
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  private static String fmt(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }

  /** Columns aligned: the first left, the rest right. */
  static String align(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        String fill = " ".repeat(width[i] - row[i].length());
        out.append(i == 0 ? row[i] + fill : "  " + fill + row[i]);
      }
      out.append(System.lineSeparator());
    }
    return out.toString();
  }
}
