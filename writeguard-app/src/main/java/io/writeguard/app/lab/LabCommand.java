package io.writeguard.app.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.cli.MongoOptions;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.cli.RedisOptions;
import io.writeguard.app.cli.RedisTarget;
import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.LabProgress.TerminalProgress;
import io.writeguard.app.lab.LabRunner.LabAbortedException;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario;
import io.writeguard.app.lab.api.Scenario.BalanceScenario;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.report.HtmlReport;
import io.writeguard.app.lab.report.Recommendation;
import io.writeguard.app.lab.report.ResultTable;
import io.writeguard.app.lab.report.ResultTable.ClosingNote;
import io.writeguard.app.lab.report.ResultTable.FiguresTable;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.SweepPoint;
import io.writeguard.internal.Checks;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
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
 * ({@code naive}) lost an update; 1 when one did (or broke an invariant such as a negative
 * balance); 2 for bad input (nothing run, nothing written); 3 when a strategy could not be
 * measured to the end (the database went away); 4 when the scenario cannot run on this server
 * at all (transfer on a standalone server), reported before anything runs.
 * Thread-safety: picocli creates one instance per invocation; not for concurrent use.
 */
@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a scenario under each strategy with concurrent clients and counts lost updates"
            + " exactly.",
        "Exit status: 0 no strategy but naive lost updates, 1 one did, 2 bad input,"
            + " 3 the database went away mid-run, 4 the scenario cannot run on this server."})
public final class LabCommand implements Callable<Integer> {
  public static final int EXIT_OK = 0;
  /** Some strategy lost updates, or the report could not be written. */
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_ABORTED = 3;
  /** The scenario cannot run on this server (e.g. transfer needs transactions). */
  public static final int EXIT_UNSUPPORTED = 4;
  static final int MAX_CLIENTS = 1024;
  static final int MAX_DOCS = 1024;
  static final int MAX_ROUNDS = 100;
  static final int MAX_SHARDS = 1000;
  /**
   * Interleaved rounds by default: one round is at the mercy of the JIT warming up and of
   * whatever else the machine does (docs/lab.md, "Measured"). Three rounds of three seconds
   * keep the default run of seven strategies near a minute and a half on two cores.
   */
  static final int DEFAULT_ROUNDS = 3;
  static final String DEFAULT_DURATION = "3s";
  /**
   * At most this much warm-up per strategy: the JIT compiles the driver and the in-JVM server
   * for tens of seconds, and a default run that warms 2-5 s per strategy still ends within
   * two minutes on two cores (docs/lab.md, "How steady the figures are").
   */
  static final String DEFAULT_WARMUP = "5s";

  private final Scenarios scenarios;

  @Spec CommandSpec spec;

  @Mixin MongoOptions mongo;

  @Mixin RedisOptions redis;

  @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "readinfo",
      description = "Scenario to run: readinfo, counter, transfer (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--strategies", paramLabel = "A,B,...", split = ",",
      description = "Strategies to measure, in this order (default: all of the scenario's;"
          + " readinfo: naive, atomic, optimistic, local-lock, mongo-lock, redis-lock,"
          + " adaptive; counter: naive, atomic, optimistic, sharded-fields, sharded-docs;"
          + " transfer: transaction).")
  List<String> strategies = List.of();

  @Option(names = "--clients", paramLabel = "N[,N...]", split = ",", defaultValue = "16",
      description = "Concurrent clients, each a distinct user (default: ${DEFAULT-VALUE});"
          + " several counts (1,4,16,64) sweep: every strategy runs at each.")
  List<Integer> clients;

  @Option(names = "--rounds", paramLabel = "N", defaultValue = "" + DEFAULT_ROUNDS,
      description = "Measured rounds per strategy, interleaved; results are medians"
          + " (default: ${DEFAULT-VALUE}; one round alone is noisy).")
  int rounds;

  @Option(names = "--duration", paramLabel = "TIME",
      description = "How long each round of a strategy is measured: 500ms, 10s, 2m"
          + " (default: " + DEFAULT_DURATION + ").")
  String duration;

  @Option(names = "--ops", paramLabel = "N",
      description = "Operations per round of a strategy across all clients, instead of"
          + " --duration.")
  Long ops;

  @Option(names = "--docs", paramLabel = "N",
      description = "Hot documents the clients share: readinfo's documents, counter's"
          + " balances, transfer's accounts (default: 4, 1, 8).")
  Integer docs;

  @Option(names = "--balance", paramLabel = "N",
      description = "counter, transfer: starting balance of every balance or account"
          + " (default: 100).")
  Long balance;

  @Option(names = "--max-amount", paramLabel = "N",
      description = "counter, transfer: amounts are drawn from 1..N (default: 10).")
  Long maxAmount;

  @Option(names = "--shards", paramLabel = "N",
      description = "counter: shards of the sharded-* strategies (default: 10).")
  Integer shards;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
      description = "Seed of the clients' random operations (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--warmup", paramLabel = "TIME", defaultValue = DEFAULT_WARMUP,
      description = "Before anything is measured, every strategy runs unmeasured, on other"
          + " documents, in slices of up to 1s until its speed stops rising (two slices in a"
          + " row each less than 5%% faster than the one before), at least three slices and at"
          + " most TIME each;"
          + " 0s for none (default: ${DEFAULT-VALUE}).")
  String warmup;

  @Option(names = "--group-commit", paramLabel = "on|off", defaultValue = "on",
      description = "on: optimistic, adaptive and the lock strategies combine the concurrent"
          + " updates of one document into one read and one write (one lock hold for the"
          + " locks), as the library does by default; off: every update runs alone, so the"
          + " clients of this process meet at the version check and at the lock"
          + " (default: ${DEFAULT-VALUE}).")
  String groupCommit;

  @Option(names = "--processes", paramLabel = "N[,N...]", split = ",", defaultValue = "1",
      description = "Spread the clients over N processes (child JVMs on the same servers), as"
          + " in a deployment of N instances: conflicts and retries between processes show,"
          + " which group commit hides inside one; readinfo only; at most the clients."
          + " Several counts (1,2,4) run the whole plan at each, with the same clients, and"
          + " say what changes (default: ${DEFAULT-VALUE}).")
  List<String> processes;

  @Option(names = "--json", paramLabel = "FILE",
      description = "Also write the results as JSON to FILE.")
  Path json;

  @Option(names = "--html", paramLabel = "FILE",
      description = "Also write a self-contained HTML page with charts to FILE.")
  Path html;

  /** The command with WriteGuard's scenarios and strategies. */
  public LabCommand() {
    this(Scenarios.standard());
  }

  /** The command with other scenarios and strategies (tests, extensions). */
  public LabCommand(Scenarios scenarios) {
    this.scenarios = scenarios;
  }

  @Override
  public Integer call() {
    // Everything the user typed is checked before a server is started or a file touched.
    LabPlan<?> plan = scenarios.plan(scenario, strategies);
    List<Integer> counts = clientCounts();
    LabSettings settings = settings(plan.scenario(), counts.get(0));
    List<Integer> processCounts = processCounts(plan.scenario(), counts);
    checkTarget("--json", json);
    checkTarget("--html", html);
    redis.check();
    boolean needsRedis = plan.strategies().stream().anyMatch(LabStrategy::needsRedis);
    boolean sweep = counts.size() > 1;

    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int most = counts.stream().mapToInt(Integer::intValue).max().orElse(1);
    // Redis only when a selected strategy uses it; opened first, so a bad --redis-uri is
    // reported before an embedded MongoDB is started. MongoDB's pool: the clients, plus the
    // counter's reader and the embedded server's own needs.
    try (RedisTarget redisTarget = needsRedis ? redis.open() : null;
        MongoTarget target = mongo.open(most + 8)) {
      Optional<String> unsupported = plan.scenario().unsupportedReason(target.client());
      if (unsupported.isPresent()) {
        err.println("writeguard lab: scenario " + plan.scenario().name()
            + " cannot run on this server, nothing measured: " + unsupported.get()
            + " (give --mongo-uri of a replica set)");
        return EXIT_UNSUPPORTED;
      }
      ServerInfo server = new ServerInfo(
          target.isEmbedded() ? ServerInfo.EMBEDDED : ServerInfo.EXTERNAL, version(target));
      out.print(ResultTable.header(plan.scenario().name(), plan.scenario().description(),
          settings, counts.stream().map(String::valueOf).collect(Collectors.joining(",")),
          server, target.displayUri()));
      if (redisTarget != null) {
        out.printf("  redis: %s at %s%n", redisTarget.isEmbedded() ? "embedded" : "external",
            redisTarget.displayUri());
      }
      LabSchedule schedule = new LabSchedule(settings, plan.strategies().size(),
          counts.size() * processCounts.size());
      out.print(extraHeader(plan.scenario(), settings, plan.strategies().size(),
          processCounts.size() > 1 ? processCounts.size() : counts.size(),
          processCounts.size() > 1 ? "process counts" : "client counts", schedule));
      int lastProcesses = processCounts.get(processCounts.size() - 1);
      if (processCounts.size() > 1) {
        out.printf("  the same %d clients in %s processes in turn (child JVMs on the same"
            + " servers when more than one)%s%n", counts.get(0), processCounts.stream()
                .map(String::valueOf).collect(Collectors.joining(", ")),
            ProcessCounts.blind(plan, lastProcesses).contains("local-lock")
                ? "; local-lock locks one process only, so its losses there are expected" : "");
      } else if (lastProcesses > 1) {
        out.printf("  clients spread over %d processes (child JVMs on the same servers)%s%n",
            lastProcesses, ProcessCounts.blind(plan, lastProcesses).contains("local-lock")
                ? "; local-lock locks one process only, so its losses are expected" : "");
      }
      out.flush();
      LabProgress progress = TerminalProgress.choose(err, sweep);
      List<ProcessesPoint> byProcesses = new ArrayList<>();
      List<SweepPoint> points = new ArrayList<>();
      LabReport last = null;
      try {
        MongoDatabase labDatabase = target.client().getDatabase(LabRunner.DATABASE);
        LabServices services = LabServices.of(labDatabase,
            redisTarget == null ? null : redisTarget.client());
        for (int processes : processCounts) {
          points = new ArrayList<>();
          for (int count : counts) {
            LabRunner runner = new LabRunner(target.client(), labDatabase,
                settings.withClients(count), progress, services, schedule);
            if (processes > 1) {
              try (LabProcesses group = LabProcesses.start(processes, count,
                  target.connectionUri(),
                  redisTarget == null ? null : redisTarget.connectionUri())) {
                last = runner.inProcesses(group).run(plan, server);
              }
            } else {
              last = runner.run(plan, server);
            }
            points.add(new SweepPoint(count, last.results()));
            byProcesses.add(new ProcessesPoint(processes, count, last.results()));
            out.println();
            if (sweep) {
              out.println(count + " clients:");
            } else if (processCounts.size() > 1) {
              out.println(count + " clients in " + ClosingNote.processes(processes) + ":");
            }
            out.print(ResultTable.render(last, ProcessCounts.blind(plan, processes)));
            String figures = FiguresTable.render(last.results());
            if (!figures.isEmpty()) {
              out.println();
              out.print(figures);
            }
            out.flush();
          }
        }
      } catch (LabAbortedException e) {
        err.println("writeguard lab: aborted: " + e.getMessage());
        err.println("writeguard lab: no report written");
        return EXIT_ABORTED;
      }
      LabReport report = last.withSweep(points).withProcesses(lastProcesses);
      if (processCounts.size() > 1) {
        report = report.withProcessCounts(byProcesses);
      }
      Set<String> blind = ProcessCounts.blind(plan, lastProcesses);
      String note = ClosingNote.render(report, blind);
      if (!note.isEmpty()) {
        out.println();
        out.print(note);
      }
      List<String> advice = new ArrayList<>(Recommendation.stormWarnings(report.results(), blind));
      advice.addAll(Recommendation.lines(report.results(), blind));
      if (report.byProcesses() != null) {
        advice.addAll(Recommendation.acrossProcesses(report.byProcesses(),
            n -> ProcessCounts.blind(plan, n)));
      }
      out.println();
      advice.forEach(out::println);
      int status = writeReports(report, blind, out, err);
      List<String> failed = LabFailures.of(report, n -> ProcessCounts.blind(plan, n));
      if (!failed.isEmpty()) {
        err.println("writeguard lab: FAILED: " + String.join(", ", failed));
        return EXIT_FAILED;
      }
      return status;
    }
  }

  /** Writes the JSON and HTML reports asked for; EXIT_FAILED when one could not be written. */
  private int writeReports(LabReport report, Set<String> blind, PrintWriter out,
      PrintWriter err) {
    int status = EXIT_OK;
    if (json != null) {
      try {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .writeValue(json.toFile(), report);
        out.println("report written to " + json);
      } catch (IOException e) {
        err.println("writeguard lab: cannot write the JSON report to '" + json + "': "
            + e.getMessage());
        status = EXIT_FAILED;
      }
    }
    if (html != null) {
      try {
        HtmlReport.write(html, report, blind);
        out.println("HTML report written to " + html);
      } catch (IOException | RuntimeException e) {
        err.println("writeguard lab: cannot write the HTML report to '" + html + "': "
            + e.getMessage());
        status = EXIT_FAILED;
      }
    }
    return status;
  }

  private static String extraHeader(Scenario<?> scenario, LabSettings s, int strategies,
      int points, String pointsName, LabSchedule schedule) {
    StringBuilder b = new StringBuilder();
    String nl = System.lineSeparator();
    if (s.rounds() > 1) {
      b.append("  ").append(s.rounds())
          .append(" interleaved rounds per strategy; speeds are medians, counts are sums")
          .append(nl);
    } else {
      b.append("  note: a single round is noisy (the JIT still warming up, other load on the"
          + " machine); compare strategies over --rounds 3 or more").append(nl);
    }
    b.append("  plan: ").append(strategies).append(strategies == 1 ? " strategy" : " strategies")
        .append(" x ").append(s.rounds()).append(s.rounds() == 1 ? " round" : " rounds")
        .append(points > 1 ? " x " + points + " " + pointsName : "")
        .append(" = ").append(schedule.measuredRounds()).append(" measured")
        .append(schedule.planned().map(d -> ", about " + LabSchedule.format(d.toNanos())
            + " with warm-ups (plus set-up and counting)").orElse(""))
        .append(nl);
    if (scenario instanceof BalanceScenario) {
      BalanceSettings bal = s.balances();
      b.append("  every balance starts at ").append(bal.initialBalance())
          .append(", amounts 1..").append(bal.maxAmount())
          .append(scenario.name().equals("counter") ? ", " + bal.shards() + " shards" : "")
          .append(System.lineSeparator());
    }
    return b.toString();
  }

  /**
   * {@code --processes}: whole numbers from 1 to the fewest clients given (every process runs
   * at least one), none twice, not together with several client counts, and above 1 only
   * for the scenarios that count per process (readinfo: the counter's and transfer's figures
   * are read per run, not per process; see {@link Scenario#countsPerProcess()}).
   */
  private List<Integer> processCounts(Scenario<?> s, List<Integer> counts) {
    List<Integer> out = ProcessCounts.parse(processes, counts);
    int most = out.stream().mapToInt(Integer::intValue).max().orElse(1);
    if (most > 1 && !s.countsPerProcess()) {
      throw new UsageException("--processes " + most + " applies to scenario "
          + String.join(", ", scenarios.countingPerProcess()) + " only, not " + s.name());
    }
    return out;
  }

  private List<Integer> clientCounts() {
    if (clients == null || clients.isEmpty()) {
      throw new UsageException("--clients needs at least one count");
    }
    Set<Integer> seen = new HashSet<>();
    for (Integer c : clients) {
      if (c == null || c < 1 || c > MAX_CLIENTS) {
        throw new UsageException(
            "--clients must be between 1 and " + MAX_CLIENTS + ", was " + c);
      }
      if (!seen.add(c)) {
        throw new UsageException("--clients lists " + c + " twice");
      }
    }
    return List.copyOf(clients);
  }

  private LabSettings settings(Scenario<?> s, int firstClients) {
    int d = docs == null ? s.defaultDocs() : docs;
    if (d < s.minDocs() || d > MAX_DOCS) {
      throw new UsageException("--docs must be between " + s.minDocs() + " and " + MAX_DOCS
          + (s.minDocs() > 1 ? " for scenario " + s.name() : "") + ", was " + d);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
      throw new UsageException(
          "--rounds must be between 1 and " + MAX_ROUNDS + ", was " + rounds);
    }
    BalanceSettings balances = balances(s);
    Duration warm = Durations.parse("--warmup", warmup, true);
    LabSettings base;
    if (ops != null) {
      if (duration != null) {
        throw new UsageException("give --duration or --ops, not both (was --duration "
            + duration + " --ops " + ops + ")");
      }
      if (ops < 1) {
        throw new UsageException("--ops must be >= 1, was " + ops);
      }
      base = LabSettings.counted(firstClients, d, seed, ops, warm);
    } else {
      Duration t = Durations.parse("--duration", duration == null ? DEFAULT_DURATION : duration,
          false);
      base = LabSettings.timed(firstClients, d, seed, t, warm);
    }
    return base.withRounds(rounds).withBalances(balances).withGroupCommit(groupCommitOn());
  }

  private boolean groupCommitOn() {
    return switch (groupCommit) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new UsageException("--group-commit must be on or off, was "
          + Checks.quote(groupCommit));
    };
  }

  private BalanceSettings balances(Scenario<?> s) {
    if (!(s instanceof BalanceScenario)) {
      String given = balance != null ? "--balance" : maxAmount != null ? "--max-amount"
          : shards != null ? "--shards" : null;
      if (given != null) {
        throw new UsageException(given + " applies to scenarios counter and transfer only,"
            + " not " + s.name());
      }
      return BalanceSettings.DEFAULTS;
    }
    if (balance != null && balance < 0) {
      throw new UsageException("--balance must be >= 0, was " + balance);
    }
    if (maxAmount != null && maxAmount < 1) {
      throw new UsageException("--max-amount must be >= 1, was " + maxAmount);
    }
    if (shards != null && (shards < 1 || shards > MAX_SHARDS)) {
      throw new UsageException(
          "--shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
    }
    return new BalanceSettings(
        balance != null ? balance : BalanceSettings.DEFAULT_INITIAL_BALANCE,
        maxAmount != null ? maxAmount : BalanceSettings.DEFAULT_MAX_AMOUNT,
        shards != null ? shards : BalanceSettings.DEFAULT_SHARDS);
  }

  private static void checkTarget(String option, Path file) {
    if (file == null) {
      return;
    }
    if (Files.isDirectory(file)) {
      throw new UsageException(option + ": '" + file + "' is a directory, not a file");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new UsageException(option + ": directory '" + parent + "' of '" + file
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
