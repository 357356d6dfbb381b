package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} is valid Prometheus text and carries the writeguard_ meters, the JVM and
 * process meters, a HELP text for every family and a latency histogram for HTTP requests.
 */
class ServeMetricsTest {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String VALUE = "(?:[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|NaN|Inf))";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") ?(.*)");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE = Pattern.compile(
      "(" + NAME + ")(\\{(?:" + LABEL + ")(?:," + LABEL + ")*,?\\})? " + VALUE + "(?: -?[0-9]+)?");

  @Test
  void everyLineParsesAndTheMetersAreThere() {
    String body;
    try (ServeFixture serve = new ServeFixture("ServeMetrics")) {
      String id = serve.createDocument(1, 1, 2);
      for (String strategy : List.of("atomic", "optimistic", "mongo-lock", "local-lock", "adaptive")) {
        assertThat(serve.mark(id, "k0", "s0", "0", strategy + "-user", strategy).statusCode()).isEqualTo(200);
      }
      serve.mark(id, "k0", "s0", "9", "alice", null); // a 404
      HttpResponse<String> r = serve.get("/metrics", null);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
      body = r.body();
    }

    Set<String> typed = new HashSet<>();
    Set<String> helped = new HashSet<>();
    Set<String> families = new HashSet<>();
    for (String line : body.split("\n")) {
      Matcher m;
      if ((m = HELP.matcher(line)).matches()) {
        assertThat(m.group(2)).as("HELP text of %s", m.group(1)).isNotBlank();
        helped.add(m.group(1));
        continue;
      }
      if ((m = TYPE.matcher(line)).matches()) {
        assertThat(typed.add(m.group(1))).as("one TYPE per family: %s", line).isTrue();
        continue;
      }
      m = SAMPLE.matcher(line);
      assertThat(m.matches()).as("Prometheus sample line: '%s'", line).isTrue();
      String name = m.group(1);
      String family = typed.stream().filter(t -> name.equals(t) || name.startsWith(t + "_"))
          .findFirst().orElse(null);
      assertThat(family).as("sample %s follows its TYPE line", name).isNotNull();
      families.add(name);
    }
    assertThat(helped).as("every family has a HELP line").containsAll(typed);
    assertThat(families).contains(
        "writeguard_update_attempts_total",
        "writeguard_update_latency_seconds_count",
        "writeguard_lock_wait_seconds_count",
        "writeguard_conflict_ratio",
        "writeguard_http_requests_seconds_count",
        "writeguard_http_requests_seconds_bucket");
    assertThat(families).as("JVM and process meters").contains(
        "jvm_memory_used_bytes",
        "jvm_buffer_count_buffers",
        "jvm_gc_memory_allocated_bytes_total",
        "jvm_threads_live_threads",
        "jvm_classes_loaded_classes",
        "system_cpu_count",
        "process_cpu_usage",
        "process_uptime_seconds",
        "process_start_time_seconds",
        "process_files_max_files",
        "process_files_open_files");
    assertThat(body.lines().filter(l -> l.startsWith("writeguard_http_requests_seconds_bucket{")
            && l.contains("route=\"/docs/{id}/infos/{key}/{skey}/{i}/read\"")))
        .as("a histogram (several buckets, up to +Inf) for the mark route")
        .hasSizeGreaterThan(10)
        .anySatisfy(l -> assertThat(l).contains("le=\"+Inf\""));
    assertThat(body).contains("route=\"/docs/{id}/infos/{key}/{skey}/{i}/read\"")
        .contains("status=\"404\"").contains("strategy=\"mongo-lock\"");
  }

  @Test
  void stoppingTheServerClosesTheMetrics() {
    ServeFixture serve = new ServeFixture("ServeMetricsClose");
    assertThat(serve.metrics.isClosed()).isFalse();
    serve.close();
    assertThat(serve.metrics.isClosed()).isTrue();
  }
}
