package io.writeguard.app.lab;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.lab.ClientLoop.ServerGone;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario;
import io.writeguard.app.lab.api.Scenario.BalanceScenario;
import io.writeguard.app.lab.api.Scenario.ScenarioRun;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.result.RoundMedians;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;
import org.bson.Document;

/**
 * Measures each strategy of a plan in turn, under the same scenario, clients and seed.
 *
 * <p>Per strategy: an unmeasured warm-up on its own documents; then fresh documents, all
 * clients released at once through a gate, each sending operations until the deadline (or
 * its share of {@code --ops}); then the scenario counts what is visible, and the documents are
 * dropped. Latencies go into one HdrHistogram per client, merged at the end, so clients never
 * contend on a shared recorder.
 *
 * <p>Every strategy warms up first, before anything is measured, until its speed stops rising
 * ({@link WarmUp}: passes of short slices over all strategies, bounded by {@code --warmup}):
 * the driver and (by default) the server run in this JVM, and the JIT compiles them for tens
 * of seconds, so without it round 1 measures a slower program than round 3. With several rounds ({@link LabSettings#rounds()}) the strategies are
 * interleaved, round 1 of every strategy, then round 2, ..., odd rounds in plan order and even
 * rounds in reverse, so a drift in speed during the run hits all of them alike; the rounds
 * are folded into one result by {@link RoundMedians}.
 *
 * <p>A run that cannot be measured to the end (the database stops answering, the documents
 * cannot be read back, the clients stall) ends with {@link LabAbortedException}; no result is
 * made up for it. Not thread-safe: one run at a time.
 *
 * <p>The clients themselves are {@link ClientLoop}s; what one round counts is a
 * {@link StrategyStats}, and its result a {@link LabReport.StrategyResult}.
 */
public final class LabRunner {
  /** The database the lab creates its collections in (and drops them from). */
  public static final String DATABASE = "writeguard_lab";
  private static final String WARMING_UP = "warming up";
  private static final String MEASURING = "measuring";
  /** The figure: each warm-up slice's acknowledged ops/s, in order ({@link WarmUp}). */
  public static final String WARMUP_SLICES = "warmup_ops_s_by_slice";
  /** The figure: seconds the strategy warmed up (its slices together). */
  public static final String WARMED_UP_S = "warmed_up_s";

  private final MongoDatabase database;
  private final LabSettings settings;
  private final MongoClient client;
  private final LabProgress progress;
  private final Ticker ticker;
  private final Duration stallTimeout;
  private final LabServices services;
  /** The whole run's phases when this runner measures one point of a sweep, else null. */
  private final LabSchedule sharedSchedule;
  private final String runTag = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
  /** The child processes the clients run in ({@code --processes}), or null to run them here. */
  private LabProcesses processes;
  /** Warm-up slices run so far, to give each its own collection. */
  private int warmUpSlices;

  /**
   * A runner without a client, printing one plain line per finished strategy; its strategies
   * may use the lab's database for lock collections but no Redis.
   */
  public LabRunner(MongoDatabase database, LabSettings settings, PrintWriter progress) {
    this(null, database, settings, LabProgress.plain(progress, false),
        LabServices.of(database, null));
  }

  /**
   * A runner whose strategies also get {@code client} (the client {@code database} belongs
   * to, for sessions and transactions; may be null) and {@code services} (lock collections,
   * Redis), reporting to {@code progress}.
   */
  public LabRunner(MongoClient client, MongoDatabase database, LabSettings settings,
      LabProgress progress, LabServices services) {
    this(client, database, settings, progress, services, null);
  }

  /**
   * The same, telling the time left from {@code schedule}, which covers the whole run this
   * runner is a part of (the other client counts of a sweep); null for this runner's own.
   */
  public LabRunner(MongoClient client, MongoDatabase database, LabSettings settings,
      LabProgress progress, LabServices services, LabSchedule schedule) {
    this(client, database, settings, progress, services, Ticker.system(), Duration.ofSeconds(30),
        schedule);
  }

  LabRunner(MongoClient client, MongoDatabase database, LabSettings settings,
      LabProgress progress, LabServices services, Ticker ticker, Duration stallTimeout) {
    this(client, database, settings, progress, services, ticker, stallTimeout, null);
  }

  private LabRunner(MongoClient client, MongoDatabase database, LabSettings settings,
      LabProgress progress, LabServices services, Ticker ticker, Duration stallTimeout,
      LabSchedule schedule) {
    this.sharedSchedule = schedule;
    this.client = client;
    this.services = Objects.requireNonNull(services, "services");
    this.database = Objects.requireNonNull(database, "database");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.stallTimeout = stallTimeout;
  }

  /**
   * Runs the clients in {@code processes} (child JVMs on the same servers) instead of in this
   * JVM; null to run them here. Returns this runner.
   */
  public LabRunner inProcesses(LabProcesses processes) {
    this.processes = processes;
    return this;
  }

  /**
   * Measures every strategy of {@code plan}, telling the progress display as each finishes.
   *
   * @throws LabAbortedException when a strategy could not be measured to the end
   */
  public <O> LabReport run(LabPlan<O> plan, ServerInfo server) {
    int rounds = settings.rounds();
    int n = plan.strategies().size();
    List<List<StrategyResult>> byStrategy = new ArrayList<>();
    plan.strategies().forEach(s -> byStrategy.add(new ArrayList<>()));
    LabSchedule schedule = sharedSchedule != null ? sharedSchedule
        : new LabSchedule(settings, n, 1);
    List<List<Double>> warmed = new WarmUp(settings.warmup()).run(n,
        (k, length) -> {
          LabStrategy<O> strategy = plan.strategies().get(k);
          long began = ticker.nanoTime();
          double speed = warmUp(plan.scenario(), strategy, length, schedule,
              new LabStep(strategy.name(), settings.clients(), 1, rounds, k + 1, n, -1));
          schedule.finished(true, ticker.nanoTime() - began);
          return speed;
        },
        schedule::moreWarmups);
    for (int round = 1; round <= rounds; round++) {
      for (int k = 0; k < n; k++) {
        // Odd rounds in plan order, even rounds reversed: a steady drift (the JIT warming
        // the driver and the in-JVM server, load coming and going) favours no strategy.
        int i = round % 2 == 1 ? k : n - 1 - k;
        LabStrategy<O> strategy = plan.strategies().get(i);
        LabStep step = new LabStep(strategy.name(), settings.clients(), round, rounds, k + 1, n,
            -1);
        long began = ticker.nanoTime();
        StrategyResult r = measure(plan.scenario(), strategy, schedule, step);
        schedule.finished(false, ticker.nanoTime() - began);
        byStrategy.get(i).add(r);
        progress.finished(step.withTimeLeft(schedule.timeLeftNanos()), r);
      }
    }
    List<StrategyResult> results = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      results.add(withWarmUp(RoundMedians.combine(byStrategy.get(k)), warmed.get(k)));
    }
    Duration d = settings.duration();
    return new LabReport(plan.scenario().name(), server, settings.clients(), settings.docs(),
        d == null ? null : d.toMillis() / 1000.0, d == null ? settings.ops() : null,
        settings.warmup().toMillis() / 1000.0, settings.seed(), results, rounds,
        plan.scenario() instanceof BalanceScenario ? settings.balances() : null, null,
        settings.groupCommit());
  }

  /** The figures of how {@code result}'s strategy warmed up: its slices' speeds and seconds. */
  private StrategyResult withWarmUp(StrategyResult result, List<Double> slices) {
    if (slices.isEmpty()) {
      return result;
    }
    java.util.Map<String, Object> figures = new java.util.LinkedHashMap<>();
    figures.put(WARMUP_SLICES, List.copyOf(slices));
    figures.put(WARMED_UP_S,
        round(slices.size() * WarmUp.sliceOf(settings.warmup()).toMillis() / 1000.0, 3));
    return result.withFigures(figures);
  }

  /** Runs one unmeasured slice of {@code strategy}; answers its acknowledged ops/s. */
  private <O> double warmUp(Scenario<O> scenario, LabStrategy<O> strategy, Duration length,
      LabSchedule schedule, LabStep step) {
    String phase = "warmup" + (++warmUpSlices);
    if (processes != null) {
      String name = collection(scenario, strategy, phase, step).getNamespace()
          .getCollectionName();
      List<LabProcesses.Part> parts;
      try {
        parts = processes.round(request(scenario, strategy, name, length, 0), false,
            patience(length));
      } finally {
        dropQuietly(database.getCollection(name));
        dropQuietly(database.getCollection(name + "_locks"));
      }
      long acked = parts.stream().mapToLong(LabProcesses.Part::acknowledged).sum();
      long elapsed = parts.stream().mapToLong(LabProcesses.Part::elapsedNanos).max().orElse(1);
      return round(acked / (Math.max(1, elapsed) / 1e9), 1);
    }
    MongoCollection<Document> warm = collection(scenario, strategy, phase, step);
    Driven<O> driven = drive(scenario, strategy, warm, RunControl.timed(length.toNanos()), 0,
        WARMING_UP, schedule, step);
    driven.run.close();
    dropQuietly(warm);
    long acked = driven.loops.stream().mapToLong(ClientLoop::acknowledged).sum();
    return round(acked / (Math.max(1, driven.elapsedNanos) / 1e9), 1);
  }

  private <O> StrategyResult measure(Scenario<O> scenario, LabStrategy<O> strategy,
      LabSchedule schedule, LabStep step) {
    MongoCollection<Document> coll = collection(scenario, strategy, "run", step);
    if (processes != null) {
      return measureInProcesses(scenario, strategy, coll);
    }
    RunControl control = settings.duration() != null
        ? RunControl.timed(settings.duration().toNanos())
        : RunControl.byQuota();
    Driven<O> driven = drive(scenario, strategy, coll, control, settings.ops(), MEASURING,
        schedule, step);
    Verification verification;
    try (ScenarioRun<O> run = driven.run) {
      verification = run.verify(driven.loops.stream().map(ClientLoop::workload).toList());
    } catch (RuntimeException e) {
      throw new LabAbortedException("could not read back the documents of strategy '"
          + strategy.name() + "' to count lost updates, so it has no result: " + e, e);
    }
    dropQuietly(coll);
    return result(strategy.name(), driven, verification);
  }

  /**
   * One round measured by the child processes: each runs its share of the clients, then each
   * counts which of its own acknowledged operations the documents hold; the parts are summed
   * (lost = acknowledged summed - visible summed) and the latencies merged.
   */
  private StrategyResult measureInProcesses(Scenario<?> scenario, LabStrategy<?> strategy,
      MongoCollection<Document> coll) {
    String name = coll.getNamespace().getCollectionName();
    List<LabProcesses.Part> parts;
    try {
      parts = processes.round(request(scenario, strategy, name, settings.duration(),
          settings.ops()), true, patience(settings.duration()));
    } finally {
      dropQuietly(coll);
      dropQuietly(database.getCollection(name + "_locks"));
    }
    Histogram latency = new Histogram(3);
    Histogram waits = new Histogram(3);
    long acked = 0, errors = 0, attempts = 0, conflicts = 0, retries = 0, timeouts = 0;
    long fenced = 0, expected = 0, visible = 0, elapsed = 0;
    boolean exclusive = false;
    String sample = null;
    for (LabProcesses.Part p : parts) {
      latency.add(p.latencyMicros());
      waits.add(p.lockWaitMicros());
      acked += p.acknowledged();
      errors += p.errors();
      attempts += p.attempts();
      conflicts += p.conflicts();
      retries += p.retries();
      timeouts += p.lockTimeouts();
      fenced += p.fencedRejections();
      expected += p.expected();
      visible += p.visible();
      elapsed = Math.max(elapsed, p.elapsedNanos());
      exclusive |= p.exclusiveLock();
      sample = sample != null ? sample : p.errorSample();
    }
    double seconds = Math.max(1, elapsed) / 1e9;
    LatencyMs ms = latency.getTotalCount() == 0 ? new LatencyMs(0, 0, 0)
        : new LatencyMs(millis(latency.getValueAtPercentile(50)),
            millis(latency.getValueAtPercentile(99)), millis(latency.getMaxValue()));
    LatencyMs lockWait = waits.getTotalCount() == 0 ? null
        : new LatencyMs(millis(waits.getValueAtPercentile(50)),
            millis(waits.getValueAtPercentile(99)), millis(waits.getMaxValue()));
    double ratio = attempts == 0 ? 0.0 : round((double) conflicts / attempts, 4);
    Verification v = new Verification(expected, visible);
    return new StrategyResult(strategy.name(), acked, v.lost(), errors, round(acked / seconds, 1),
        ms, ratio, retries, attempts, conflicts, expected, visible, round(seconds, 3), sample,
        lockWait, timeouts, fenced, exclusive ? conflicts + fenced : 0, v.figures());
  }

  /** What every process is asked to run for one round of {@code strategy}. */
  private java.util.Map<String, Object> request(Scenario<?> scenario, LabStrategy<?> strategy,
      String collection, Duration duration, long ops) {
    java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
    r.put("scenario", scenario.name());
    r.put("strategy", strategy.name());
    r.put("collection", collection);
    r.put("docs", settings.docs());
    r.put("seed", settings.seed());
    r.put("duration_ms", duration == null ? 0 : duration.toMillis());
    r.put("ops", duration == null ? ops : 0);
    r.put("group_commit", settings.groupCommit());
    r.put("initial_balance", settings.balances().initialBalance());
    r.put("max_amount", settings.balances().maxAmount());
    r.put("shards", settings.balances().shards());
    return r;
  }

  /** How long to wait for the processes' answers to a round of {@code duration} (or of ops). */
  private Duration patience(Duration duration) {
    return (duration == null ? Duration.ofMinutes(10) : duration).plus(stallTimeout)
        .plusSeconds(60);
  }

  private MongoCollection<Document> collection(Scenario<?> scenario, LabStrategy<?> strategy,
      String phase, LabStep step) {
    String round = step.rounds() > 1 ? "r" + step.round() + "_" : "";
    return database.getCollection(scenario.name() + "_" + strategy.name() + "_" + phase + "_"
        + round + runTag);
  }

  /** Everything one driven run left behind for counting. */
  record Driven<O>(ScenarioRun<O> run, List<ClientLoop<O>> loops, StrategyStats stats,
      long elapsedNanos, boolean exclusiveLock) {}

  private <O> Driven<O> drive(Scenario<O> scenario, LabStrategy<O> strategy,
      MongoCollection<Document> coll, RunControl control, long totalOps, String phase,
      LabSchedule schedule, LabStep step) {
    return drive(scenario, strategy, coll, control, totalOps, phase, schedule, step, 0,
        settings.clients());
  }

  /**
   * Drives clients {@code first .. first + count - 1} of the run's {@code settings.clients()}
   * (all of them in one process; one process's share with {@code --processes}, see
   * {@link LabWorker}). The scenario sees {@code count} clients, so its pace (readinfo's
   * generations) follows the clients of this process.
   */
  <O> Driven<O> drive(Scenario<O> scenario, LabStrategy<O> strategy,
      MongoCollection<Document> coll, RunControl control, long totalOps, String phase,
      LabSchedule schedule, LabStep step, int first, int count) {
    StrategyStats stats = new StrategyStats();
    OperationScope scope = new OperationScope(coll.getNamespace().getCollectionName(), strategy.name());
    ScenarioRun<O> run = null;
    Strategy<O> impl = null;
    try {
      // The collection's name is new to this run, so it is empty: no drop needed.
      run = scenario.start(coll, count == settings.clients() ? settings.scenarioSettings()
          : settings.withClients(count).scenarioSettings());
      impl = strategy.factory().create(
          new StrategyContext(coll, WriteGuardListener.safe(stats), scope, ticker, client,
              services, settings.groupCommit()));
      run.prepare(impl);
    } catch (RuntimeException e) {
      if (impl != null) {
        closeQuietly(impl, strategy.name());
      }
      if (run != null) {
        run.close();
      }
      String what = ServerGone.is(e) ? ServerGone.describe(e) : "the run failed";
      throw new LabAbortedException(what + " while setting up strategy '" + strategy.name()
          + "' (" + phase + "), so it has no result: " + e, e);
    }

    CountDownLatch gate = new CountDownLatch(1);
    List<ClientLoop<O>> loops = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    int clients = settings.clients();
    for (int i = first; i < first + count; i++) {
      long quota = totalOps == 0
          ? Long.MAX_VALUE
          : totalOps / clients + (i < totalOps % clients ? 1 : 0);
      ClientLoop<O> loop = new ClientLoop<>(run.client(i, clientSeed(i)), impl, ticker,
          control, gate, quota);
      Thread t = new Thread(loop, "lab-" + strategy.name() + "-" + i);
      t.setDaemon(true);
      loops.add(loop);
      threads.add(t);
      t.start();
    }
    long start = ticker.nanoTime();
    control.begin(start);
    gate.countDown();
    try {
      awaitAll(threads, loops, control, strategy.name(), start, phase, schedule, step);
    } catch (RuntimeException e) {
      run.close();
      throw e;
    } finally {
      closeQuietly(impl, strategy.name());
    }
    long elapsed = ticker.nanoTime() - start;

    Throwable fatal = control.fatal();
    if (fatal != null) {
      run.close();
      long acked = loops.stream().mapToLong(ClientLoop::acknowledged).sum();
      String what = ServerGone.is(fatal) ? ServerGone.describe(fatal)
          : fatal instanceof LabAbortedException ? fatal.getMessage()
          : "the run failed";
      throw new LabAbortedException(what + " while " + phase + " strategy '" + strategy.name()
          + "' (after " + acked + " acknowledged operations), so it has no result"
          + (fatal instanceof LabAbortedException ? "" : ": " + fatal), fatal);
    }
    return new Driven<>(run, loops, stats, elapsed, impl.holdsExclusiveLock());
  }

  /** Every client gets its own stream; every strategy gets the same streams. */
  private long clientSeed(int client) {
    return settings.seed() * 0x9E3779B97F4A7C15L + client;
  }

  private void awaitAll(List<Thread> threads, List<? extends ClientLoop<?>> loops,
      RunControl control, String strategy, long start, String phase, LabSchedule schedule,
      LabStep step) {
    long lastTotal = -1;
    long lastProgress = ticker.nanoTime();
    try {
      for (Thread t : threads) {
        while (t.isAlive()) {
          t.join(200);
          long total = loops.stream().mapToLong(ClientLoop::completed).sum();
          long now = ticker.nanoTime();
          progress.running(
              step.withTimeLeft(schedule.timeLeftNanos(phase.equals(WARMING_UP), now - start)),
              phase, now - start, total);
          if (total != lastTotal) {
            lastTotal = total;
            lastProgress = now;
          } else if (now - lastProgress > stallTimeout.toNanos()) {
            control.fail(new LabAbortedException("no operation of strategy '" + strategy
                + "' completed for " + Durations.format(stallTimeout), null));
            threads.forEach(Thread::interrupt);
            return;
          }
        }
      }
    } catch (InterruptedException e) {
      control.stop();
      threads.forEach(Thread::interrupt);
      throw new WriteGuardInterruptedException("waiting for the lab's clients", e);
    }
  }

  StrategyResult result(String name, Driven<?> driven, Verification v) {
    Histogram latency = new Histogram(3);
    long acked = 0;
    long errors = 0;
    String sample = null;
    for (ClientLoop<?> loop : driven.loops) {
      latency.add(loop.latencyMicros());
      acked += loop.acknowledged();
      errors += loop.errors();
      if (sample == null) {
        sample = loop.errorSample();
      }
    }
    double seconds = driven.elapsedNanos / 1e9;
    LatencyMs ms = latency.getTotalCount() == 0
        ? new LatencyMs(0, 0, 0)
        : new LatencyMs(millis(latency.getValueAtPercentile(50)),
            millis(latency.getValueAtPercentile(99)), millis(latency.getMaxValue()));
    StrategyStats stats = driven.stats;
    Histogram waits = stats.lockWaitMicros();
    LatencyMs lockWait = waits.getTotalCount() == 0 ? null
        : new LatencyMs(millis(waits.getValueAtPercentile(50)),
            millis(waits.getValueAtPercentile(99)), millis(waits.getMaxValue()));
    return new StrategyResult(name, acked, v.lost(), errors,
        round(acked / seconds, 1), ms, round(stats.conflictRatio(), 4), stats.retries(),
        stats.attempts(), stats.conflicts(), v.expected(), v.visible(), round(seconds, 3), sample,
        lockWait, stats.lockTimeouts(), stats.fencedRejections(),
        driven.exclusiveLock ? stats.conflicts() + stats.fencedRejections() : 0, v.figures());
  }

  static double millis(long micros) {
    return round(micros / 1000.0, 3);
  }

  static double round(double value, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }

  private void closeQuietly(Strategy<?> impl, String name) {
    try {
      impl.close();
    } catch (RuntimeException e) {
      // The run is over; what it measured stands. Say so, since something may be left open.
      progress.note("lab: " + name + ": closing the strategy failed: " + e);
    }
  }

  private static void dropQuietly(MongoCollection<Document> coll) {
    try {
      coll.drop();
    } catch (RuntimeException e) {
      // The result is measured and counted already; a leftover collection is harmless.
    }
  }

  /**
   * The lab stopped before it could measure a strategy to the end: the database stopped
   * answering, the documents could not be read back, or the clients stalled. No result is
   * reported for the strategy that was running.
   */
  public static final class LabAbortedException extends WriteGuardException {
    private static final long serialVersionUID = 1L;

    public LabAbortedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
