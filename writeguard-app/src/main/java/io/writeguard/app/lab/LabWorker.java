package io.writeguard.app.lab;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.cli.RedisTarget;
import io.writeguard.app.lab.LabRunner.Driven;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.Document;

/**
 * A child JVM of {@code writeguard lab --processes N} ({@link LabProcesses}): connects to the
 * servers the parent opened, then answers requests, one JSON line each on stdin, one reply line
 * on stdout (logs go to stderr), and exits at the end of its input. Started by the lab; not
 * meant to be run by hand.
 *
 * <ul>
 *   <li>{@code run}: drives clients {@code first .. first+count-1} of the round's
 *       {@code clients} under one strategy on the round's collection, exactly as the lab does in
 *       one process ({@link LabRunner}), and answers a {@link LabProcesses.Part}; with
 *       {@code verify} it keeps its clients' records for the next request;
 *   <li>{@code verify}: reads the documents (every process has stopped writing by then) and
 *       answers {@code expected} and {@code visible} for its own clients' acknowledged
 *       operations.
 * </ul>
 *
 * <p>Arguments: mongoUri redisUri|-.
 */
public final class LabWorker {
  private LabWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: LabWorker mongoUri redisUri|-");
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err); // nothing but replies on stdout
    ObjectMapper json = new ObjectMapper();
    Scenarios scenarios = Scenarios.standard();
    try (MongoTarget mongo = MongoTarget.open(args[0], LabCommand.MAX_CLIENTS + 8);
        RedisTarget redis = "-".equals(args[1]) ? null : RedisTarget.open(args[1])) {
      MongoDatabase database = mongo.client().getDatabase(LabRunner.DATABASE);
      LabServices services = LabServices.shared(database, redis == null ? null : redis.client());
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      Driven<?> pending = null;
      for (String line; (line = in.readLine()) != null; ) {
        Map<String, Object> request = json.readValue(line, new TypeReference<>() {});
        try {
          if ("verify".equals(request.get("cmd"))) {
            if (pending == null) {
              throw new IllegalStateException("verify without a run to verify");
            }
            Driven<?> d = pending;
            pending = null;
            out.println(json.writeValueAsString(verify(d)));
          } else {
            if (pending != null) {
              pending.run().close();
              pending = null;
            }
            Driven<?> d = run(scenarios, mongo, database, services, request);
            LabProcesses.Part part = part(d);
            if (Boolean.TRUE.equals(request.get("verify"))) {
              pending = d;
            } else {
              d.run().close();
            }
            out.println(json.writeValueAsString(part.toJson()));
          }
        } catch (RuntimeException | Error e) {
          out.println(json.writeValueAsString(Map.of("failure", String.valueOf(e))));
        }
      }
    }
    System.exit(0); // client libraries may leave non-daemon threads behind
  }

  private static <O> Map<String, Object> verify(Driven<O> d) {
    try (var run = d.run()) {
      Verification v = run.verify(d.loops().stream().map(ClientLoop::workload).toList());
      return Map.of("expected", v.expected(), "visible", v.visible());
    }
  }

  private static Driven<?> run(Scenarios scenarios, MongoTarget mongo, MongoDatabase database,
      LabServices services, Map<String, Object> r) {
    LabPlan<?> plan = scenarios.plan((String) r.get("scenario"),
        List.of((String) r.get("strategy")));
    int clients = num(r, "clients");
    long ops = ((Number) r.get("ops")).longValue();
    long durationMs = ((Number) r.get("duration_ms")).longValue();
    int docs = num(r, "docs");
    long seed = ((Number) r.get("seed")).longValue();
    LabSettings settings = (ops > 0
        ? LabSettings.counted(clients, docs, seed, ops, Duration.ZERO)
        : LabSettings.timed(clients, docs, seed, Duration.ofMillis(durationMs), Duration.ZERO))
        .withBalances(new BalanceSettings(((Number) r.get("initial_balance")).longValue(),
            ((Number) r.get("max_amount")).longValue(), num(r, "shards")))
        .withGroupCommit(Boolean.TRUE.equals(r.get("group_commit")));
    LabRunner runner = new LabRunner(mongo.client(), database, settings,
        LabProgress.plain(new PrintWriter(System.err, true), false), services);
    return drive(runner, plan, database.getCollection((String) r.get("collection")), settings,
        num(r, "first"), num(r, "count"));
  }

  private static <O> Driven<O> drive(LabRunner runner, LabPlan<O> plan,
      MongoCollection<Document> coll, LabSettings settings, int first, int count) {
    RunControl control = settings.duration() != null
        ? RunControl.timed(settings.duration().toNanos())
        : RunControl.byQuota();
    var strategy = plan.strategies().get(0);
    LabStep step = new LabStep(strategy.name(), count, 1, 1, 1, 1, -1);
    return runner.drive(plan.scenario(), strategy, coll, control, settings.ops(), "measuring",
        new LabSchedule(settings, 1, 1), step, first, count);
  }

  private static LabProcesses.Part part(Driven<?> d) {
    org.HdrHistogram.Histogram latency = new org.HdrHistogram.Histogram(3);
    long acked = 0;
    long errors = 0;
    String sample = null;
    for (ClientLoop<?> loop : d.loops()) {
      latency.add(loop.latencyMicros());
      acked += loop.acknowledged();
      errors += loop.errors();
      if (sample == null) {
        sample = loop.errorSample();
      }
    }
    StrategyStats s = d.stats();
    return new LabProcesses.Part(acked, errors, sample, d.elapsedNanos(), latency, s.attempts(),
        s.conflicts(), s.retries(), s.lockTimeouts(), s.fencedRejections(), s.lockWaitMicros(),
        d.exclusiveLock(), 0, 0);
  }

  private static int num(Map<String, Object> r, String name) {
    return ((Number) r.get(name)).intValue();
  }
}
