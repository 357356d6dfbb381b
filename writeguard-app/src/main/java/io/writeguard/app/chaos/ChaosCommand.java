package io.writeguard.app.chaos;

import io.writeguard.app.cli.UsageException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writeguard chaos}: injects faults into a workload on the embedded default and checks
 * the history (see {@link Faults}, {@link Testbed} and {@link Checker}; docs/chaos.md). Exit
 * status 0 when every row holds, 1 on any loss, duplicate, failed-but-applied operation or
 * exceeded bound, 2 for bad input. Not thread-safe: picocli makes one instance per invocation.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "Injects faults into concurrent writers and checks every operation's outcome.",
      "Faults: connection reset and refusal, a MongoDB black hole, a lock holder paused past",
      "its lease, Redis SIGKILL, serve SIGTERM and SIGKILL, on the embedded MongoDB and Redis.",
      "Exit 1 on any lost or duplicated acknowledged operation or exceeded bound."
    })
public final class ChaosCommand implements Callable<Integer> {
  /** The guarded strategies, run by default. */
  static final List<String> GUARDED = List.of("atomic", "optimistic", "mongo-lock",
      "redis-lock", "adaptive");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s)");

  @Spec private CommandSpec spec;

  @Option(names = "--short", description = "The CI version: shorter phases and black hole.")
  private boolean shortRun;

  @Option(names = "--faults", paramLabel = "LIST", split = ",",
      description = "Faults to run (default: all): reset-refuse, blackhole, pause, redis-kill,"
          + " serve-term, serve-kill.")
  private List<String> faults = new ArrayList<>(Faults.NAMES);

  @Option(names = "--strategies", paramLabel = "LIST", split = ",",
      description = "Strategies (default: the guarded ones: atomic, optimistic, mongo-lock,"
          + " redis-lock, adaptive); naive shows what an unguarded writer loses.")
  private List<String> strategies = new ArrayList<>(GUARDED);

  @Option(names = "--mongo-timeout", paramLabel = "TIME", defaultValue = "2s",
      description = "The MongoDB client's connect, read and pool wait, e.g. 2s or 1500ms"
          + " (default: ${DEFAULT-VALUE}).")
  private String mongoTimeout;

  @Option(names = "--deadline", paramLabel = "TIME", defaultValue = "10s",
      description = "Each operation's deadline, and the serve JVMs' request deadline; the bound"
          + " checked is it + 1 s (default: ${DEFAULT-VALUE}).")
  private String deadline;

  @Option(names = "--json", paramLabel = "FILE", defaultValue = "chaos-report.json",
      description = "Where to write the JSON result (default: ${DEFAULT-VALUE}).")
  private Path json;

  @Override
  public Integer call() throws Exception {
    for (String f : faults) {
      if (!Faults.NAMES.contains(f)) {
        throw new UsageException("--faults: unknown fault '" + f + "' (valid: "
            + String.join(", ", Faults.NAMES) + ")");
      }
    }
    for (String s : strategies) {
      if (!GUARDED.contains(s) && !s.equals("naive")) {
        throw new UsageException("--strategies: '" + s + "' cannot run here (valid: "
            + String.join(", ", GUARDED) + ", naive; local-lock protects one process only)");
      }
    }
    ChaosSettings settings = ChaosSettings.of(shortRun, parse("--mongo-timeout", mongoTimeout),
        parse("--deadline", deadline));
    PrintWriter out = spec.commandLine().getOut();
    Path dir = Files.createTempDirectory("writeguard-chaos");
    List<ChaosRow> rows = new ArrayList<>();
    try (Testbed bed = new Testbed(settings, List.copyOf(strategies), dir, out)) {
      bed.start();
      for (String fault : faults) {
        rows.addAll(bed.run(Faults.named(fault)));
      }
    }
    ChaosReport.printTable(rows, settings, out);
    ChaosReport.writeJson(rows, settings, json);
    boolean ok = rows.stream().allMatch(ChaosRow::ok);
    out.println((ok ? "chaos: every row holds" : "chaos: FAILED")
        + " (JSON: " + json.toAbsolutePath() + "; child logs: " + dir + ")");
    out.flush();
    return ok ? 0 : 1;
  }

  private static Duration parse(String option, String text) {
    Matcher m = DURATION.matcher(text == null ? "" : text.trim());
    if (!m.matches() || Long.parseLong(m.group(1)) == 0 || m.group(1).length() > 9) {
      throw new UsageException(option + " must be a positive duration such as 2s or"
          + " 1500ms, was '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return m.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofSeconds(n);
  }
}
