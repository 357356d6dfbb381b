package io.writeguard.app.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.writeguard.app.cli.MongoOptions;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.cli.RedisOptions;
import io.writeguard.app.cli.RedisTarget;
import io.writeguard.app.cli.UsageException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writeguard lab}: runs a scenario under several strategies with N concurrent clients
 * and prints, per strategy, what was acknowledged, what was lost, and how fast.
 *
 * <p>Exit status: 0 when no strategy but those that exist to show the problem
 * ({@code naive}) lost an update; 1 when one did; 2 for bad input (nothing run, nothing
 * written); 3 when a strategy could not be measured to the end (the database went away).
 * Thread-safety: picocli creates one instance per invocation; not for concurrent use.
 */
@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a scenario under each strategy with concurrent clients and counts lost updates"
            + " exactly.",
        "Exit status: 0 no strategy but naive lost updates, 1 one did, 2 bad input,"
            + " 3 the database went away mid-run."})
public final class LabCommand implements Callable<Integer> {
  public static final int EXIT_OK = 0;
  /** Some strategy lost updates, or the report could not be written. */
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_ABORTED = 3;
  static final int MAX_CLIENTS = 1024;
  static final int MAX_DOCS = 1024;

  private final LabRegistry registry;

  @Spec CommandSpec spec;

  @Mixin MongoOptions mongo;

  @Mixin RedisOptions redis;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "readinfo",
      description = "Scenario to run (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--strategies", paramLabel = "A,B,...", split = ",",
      description = "Strategies to measure, in this order (default: all of the scenario's;"
          + " readinfo: naive, atomic, optimistic, local-lock, mongo-lock, redis-lock,"
          + " adaptive).")
  List<String> strategies = List.of();

  @Option(names = "--clients", paramLabel = "N", defaultValue = "16",
      description = "Concurrent clients, each a distinct user (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--duration", paramLabel = "TIME",
      description = "How long each strategy is measured: 500ms, 10s, 2m (default: 10s).")
  String duration;

  @Option(names = "--ops", paramLabel = "N",
      description = "Operations per strategy across all clients, instead of --duration.")
  Long ops;

  @Option(names = "--docs", paramLabel = "N", defaultValue = "4",
      description = "Hot documents the clients share (default: ${DEFAULT-VALUE}).")
  int docs;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
      description = "Seed of the clients' random operations (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--warmup", paramLabel = "TIME", defaultValue = "1s",
      description = "Unmeasured run of each strategy first, on other documents; 0s for none"
          + " (default: ${DEFAULT-VALUE}).")
  String warmup;

  @Option(names = "--json", paramLabel = "FILE",
      description = "Also write the results as JSON to FILE.")
  Path json;

  /** The command with WriteGuard's scenarios and strategies. */
  public LabCommand() {
    this(LabRegistry.standard());
  }

  /** The command with other scenarios and strategies (tests, extensions). */
  public LabCommand(LabRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Integer call() {
    // Everything the user typed is checked before a server is started or a file touched.
    LabPlan<?> plan = registry.scenario(scenario).plan(strategies);
    LabSettings settings = settings();
    checkJsonTarget();
    redis.check();
    boolean needsRedis = plan.strategies().stream().anyMatch(LabStrategy::needsRedis);

    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    // Redis only when a selected strategy uses it; opened first, so a bad --redis-uri is
    // reported before an embedded MongoDB is started.
    try (RedisTarget redisTarget = needsRedis ? redis.open() : null;
        MongoTarget target = mongo.open(clients + 4)) {
      ServerInfo server = new ServerInfo(
          target.isEmbedded() ? ServerInfo.EMBEDDED : ServerInfo.EXTERNAL, version(target));
      out.print(ResultTable.header(plan.scenario().name(), plan.scenario().description(),
          settings, server, target.displayUri()));
      if (redisTarget != null) {
        out.printf("  redis: %s at %s%n", redisTarget.isEmbedded() ? "embedded" : "external",
            redisTarget.displayUri());
      }
      out.flush();
      LabReport report;
      try {
        LabServices services = LabServices.of(target.client().getDatabase(LabRunner.DATABASE),
            redisTarget == null ? null : redisTarget.client());
        report = new LabRunner(target.client().getDatabase(LabRunner.DATABASE), settings, err,
            services).run(plan, server);
      } catch (LabAbortedException e) {
        err.println("writeguard lab: aborted: " + e.getMessage());
        err.println("writeguard lab: no report written");
        return EXIT_ABORTED;
      }
      Set<String> blind = plan.strategies().stream()
          .filter(LabStrategy::reproducesLoss).map(LabStrategy::name).collect(Collectors.toSet());
      out.println();
      out.print(ResultTable.render(report, blind));
      out.flush();
      if (json != null) {
        try {
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
              .writeValue(json.toFile(), report);
          out.println("report written to " + json);
        } catch (IOException e) {
          err.println("writeguard lab: cannot write the JSON report to '" + json + "': "
              + e.getMessage());
          return EXIT_FAILED;
        }
      }
      List<String> failed = report.results().stream()
          .filter(r -> r.lostUpdates() > 0 && !blind.contains(r.strategy()))
          .map(r -> r.strategy() + " lost " + r.lostUpdates())
          .toList();
      if (!failed.isEmpty()) {
        err.println("writeguard lab: FAILED: " + String.join(", ", failed)
            + " acknowledged update(s)");
        return EXIT_FAILED;
      }
      return EXIT_OK;
    }
  }

  private LabSettings settings() {
    if (clients < 1 || clients > MAX_CLIENTS) {
      throw new UsageException(
          "--clients must be between 1 and " + MAX_CLIENTS + ", was " + clients);
    }
    if (docs < 1 || docs > MAX_DOCS) {
      throw new UsageException("--docs must be between 1 and " + MAX_DOCS + ", was " + docs);
    }
    Duration warm = LabDurations.parse("--warmup", warmup, true);
    if (ops != null) {
      if (duration != null) {
        throw new UsageException("give --duration or --ops, not both (was --duration "
            + duration + " --ops " + ops + ")");
      }
      if (ops < 1) {
        throw new UsageException("--ops must be >= 1, was " + ops);
      }
      return LabSettings.counted(clients, docs, seed, ops, warm);
    }
    Duration d = LabDurations.parse("--duration", duration == null ? "10s" : duration, false);
    return LabSettings.timed(clients, docs, seed, d, warm);
  }

  private void checkJsonTarget() {
    if (json == null) {
      return;
    }
    if (Files.isDirectory(json)) {
      throw new UsageException("--json: '" + json + "' is a directory, not a file");
    }
    Path parent = json.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new UsageException("--json: directory '" + parent + "' of '" + json
          + "' does not exist");
    }
  }

  private static String version(MongoTarget target) {
    try {
      return target.serverVersion();
    } catch (RuntimeException e) {
      return "unknown";
    }
  }
}
