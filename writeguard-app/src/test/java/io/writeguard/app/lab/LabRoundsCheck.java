package io.writeguard.app.lab;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.lettuce.core.RedisClient;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.embedded.EmbeddedRedis;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A benchmark run by hand, not a test: measures strategies of {@code readinfo} in one JVM over
 * interleaved rounds, after a warm-up long enough for the JIT, with the order rotated each
 * round, and prints every round's throughput ratios to a base strategy and their medians.
 *
 * <p>Why: on a loaded 2-core machine the first strategies of a {@code writeguard lab} run are
 * measured while the JIT is still compiling, and whatever runs first looks several times
 * slower than it is. Rotating the order and taking medians removes that bias.
 *
 * <pre>
 * java -cp writeguard-app/target/writeguard.jar:writeguard-app/target/test-classes \
 *     io.writeguard.app.lab.LabRoundsCheck CLIENTS DOCS SECONDS ROUNDS WARMUP_S BASE S1,S2,...
 * </pre>
 */
public final class LabRoundsCheck {
  private LabRoundsCheck() {}

  public static void main(String[] args) {
    int clients = Integer.parseInt(args[0]);
    int docs = Integer.parseInt(args[1]);
    Duration each = Duration.ofSeconds(Long.parseLong(args[2]));
    int rounds = Integer.parseInt(args[3]);
    Duration warmup = Duration.ofSeconds(Long.parseLong(args[4]));
    String base = args[5];
    List<String> strategies = List.of(args[6].split(","));
    PrintWriter quiet = new PrintWriter(java.io.OutputStream.nullOutputStream());
    try (EmbeddedMongo mongo = EmbeddedMongo.start();
        MongoClient client = MongoClients.create(mongo.uri());
        EmbeddedRedis redisServer = EmbeddedRedis.start()) {
      RedisClient redis = RedisClient.create(redisServer.uri());
      try {
        var db = client.getDatabase(LabRunner.DATABASE);
        LabServices services = LabServices.of(db, redis);
        ScenarioEntry<?> entry = LabRegistry.standard().scenario("readinfo");
        // Warm-up: every strategy, unmeasured, so the JIT has compiled the shared paths.
        new LabRunner(db, LabSettings.timed(clients, docs, 1, warmup, Duration.ZERO), quiet,
            services).run(entry.plan(strategies), new ServerInfo("embedded", "-"));
        Map<String, List<Double>> ratios = new HashMap<>();
        for (int r = 0; r < rounds; r++) {
          List<String> order = new ArrayList<>(strategies);
          java.util.Collections.rotate(order, -r);
          LabReport report = new LabRunner(db,
              LabSettings.timed(clients, docs, 42 + r, each, Duration.ZERO), quiet, services)
              .run(entry.plan(order), new ServerInfo("embedded", "-"));
          double b = report.result(base).orElseThrow().throughputOpsS();
          StringBuilder line = new StringBuilder("round " + (r + 1) + " " + order + ":");
          for (StrategyResult res : report.results()) {
            line.append(String.format(Locale.ROOT, " %s=%.0f/s(%.2fx, lost %d, err %d)",
                res.strategy(), res.throughputOpsS(), res.throughputOpsS() / b,
                res.lostUpdates(), res.errors()));
            ratios.computeIfAbsent(res.strategy(), k -> new ArrayList<>())
                .add(res.throughputOpsS() / b);
          }
          System.out.println(line);
        }
        for (String s : strategies) {
          List<Double> v = new ArrayList<>(ratios.get(s));
          v.sort(null);
          double median = v.size() % 2 == 1 ? v.get(v.size() / 2)
              : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
          System.out.printf(Locale.ROOT, "%s / %s: median %.2f of %s%n", s, base, median, v);
        }
      } finally {
        redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
