package io.writeguard.app.chaos;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.writeguard.app.Main;
import io.writeguard.app.chaos.Checker.FinalState;
import io.writeguard.app.chaos.Checker.Recovery;
import io.writeguard.app.chaos.Processes.ChildJvm;
import io.writeguard.app.chaos.Processes.RedisProcess;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.serve.JwtAuth;
import io.writeguard.app.serve.JwtSecret;
import io.writeguard.lock.LockHandle;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * Runs the faults of a chaos run on the embedded default: MongoDB in its own JVM
 * ({@code writeguard mongo}), Redis as a redis-server child, and a {@link FaultProxy} in front
 * of each. The coordinator's own client threads work through the proxies; the pause fault adds
 * a holder JVM ({@link ChaosHolder}), the serve faults three {@code writeguard serve} JVMs.
 * Each fault gets a fresh database, runs the load for a phase, injects the fault, runs another
 * phase, stops the load, reads the final state directly (not through the proxy) and hands the
 * history to the {@link Checker}.
 *
 * <p>Not thread-safe: one run, driven by one thread.
 */
final class Faults implements AutoCloseable {
  /** The workload of the rows measured through serve JVMs during the black hole. */
  static final String SERVE_WORKLOAD = "serve";
  /** The documents the serve JVMs of the black hole are warmed up on. */
  private static final String SERVE_WARMUP = "serve-warmup";

  /** Every fault, in the order they run. */
  static final List<String> NAMES = List.of("reset-refuse", "blackhole", "pause", "redis-kill",
      "mongo-kill", "serve-term", "serve-kill");
  /** The lease of {@code writeguard serve}'s lock services (their builders' default). */
  static final Duration SERVE_LEASE = Duration.ofSeconds(30);
  private static final Duration REFUSAL = Duration.ofSeconds(2);
  private static final Duration REDIS_DOWN = Duration.ofSeconds(1);
  private static final Duration MONGO_DOWN = Duration.ofSeconds(1);
  private static final Duration CHILD_START = Duration.ofSeconds(120);

  private final ChaosSettings settings;
  private final List<String> strategies;
  private final Path dir;
  private final PrintWriter progress;
  private final Checker checker;
  private final String nonce = Long.toString(System.currentTimeMillis() % 1_000_000);
  private ChildJvm mongo;
  private String mongoUri;
  private RedisProcess redis;
  private FaultProxy mongoProxy;
  private FaultProxy redisProxy;
  private MongoClient direct;

  Faults(ChaosSettings settings, List<String> strategies, Path dir, PrintWriter progress) {
    this.settings = settings;
    this.strategies = strategies;
    this.dir = dir;
    this.progress = progress;
    this.checker = new Checker(settings);
  }

  /** Starts MongoDB ({@code writeguard mongo} in a child JVM), Redis and the two proxies. */
  void start() throws IOException, InterruptedException {
    mongo = ChildJvm.start("mongo", dir, Main.class.getName(), List.of("mongo"));
    mongoUri = mongo.await(l -> l.startsWith("mongodb://"), CHILD_START, new ArrayList<>());
    redis = new RedisProcess();
    ConnectionString cs = new ConnectionString(mongoUri);
    String[] hostPort = cs.getHosts().get(0).split(":");
    mongoProxy = new FaultProxy(hostPort[0], Integer.parseInt(hostPort[1]));
    redisProxy = new FaultProxy("127.0.0.1", redis.port());
    direct = MongoClients.create(MongoTarget.settings(cs, 8, Duration.ofSeconds(30)));
    say("MongoDB " + mongoUri + " (pid " + mongo.pid() + "), Redis port " + redis.port()
        + ", proxies " + mongoProxy.port() + " and " + redisProxy.port());
  }

  /** Runs fault {@code name} and returns its rows. */
  List<ChaosRow> run(String name) throws Exception {
    say("fault " + name + " ...");
    return switch (name) {
      case "reset-refuse" -> inProcess(name, this::resetRefuse);
      case "blackhole" -> blackHoleWithServes();
      case "pause" -> inProcess(name, this::pause);
      case "redis-kill" -> inProcess(name, this::redisKill);
      case "mongo-kill" -> mongoKill(name);
      case "serve-term" -> serve(name, false);
      case "serve-kill" -> serve(name, true);
      default -> throw new IllegalArgumentException("unknown fault '" + name + "' (valid: "
          + String.join(", ", NAMES) + ")");
    };
  }

  /** What an injected fault leaves for the checker. */
  private record Injected(long recoveryFrom, Duration recoveryBound, List<String> violations) {}

  private interface Injection {
    Injected inject(Backends backends, History history, String database) throws Exception;
  }

  private List<ChaosRow> inProcess(String fault, Injection injection) throws Exception {
    return inProcess(fault, direct, proxiedMongoUri(), injection);
  }

  /** The load through {@code proxiedMongoUri}; the final state read with {@code direct}. */
  private List<ChaosRow> inProcess(String fault, MongoClient direct, String proxiedMongoUri,
      Injection injection) throws Exception {
    String database = "chaos_" + fault.replace('-', '_') + "_" + nonce;
    MongoCollection<Document> docs = direct.getDatabase(database).getCollection("docs");
    Load.seed(docs, strategies);
    History history = new History();
    Injected injected;
    try (Backends backends = new Backends(settings, proxiedMongoUri, proxiedRedisUri(),
        database)) {
      Load load = new Load(backends, history, "coord", strategies, 2);
      load.start();
      Thread.sleep(settings.phase().toMillis());
      injected = injection.inject(backends, history, database);
      Thread.sleep(settings.phase().toMillis());
      load.stop();
    }
    List<ChaosRow> rows = new ArrayList<>();
    for (String workload : Load.WORKLOADS) {
      for (String strategy : strategies) {
        List<Op> ops = history.ops().stream()
            .filter(o -> o.workload().equals(workload) && o.strategy().equals(strategy)).toList();
        Duration bound = injected.recoveryBound() != null ? injected.recoveryBound()
            : settings.bound(strategy);
        rows.add(checker.check(fault, workload, strategy, ops,
            FinalState.read(docs, Load.docId(workload, strategy)),
            new Recovery(injected.recoveryFrom(), bound.toMillis(), ""),
            injected.violations()));
      }
    }
    return rows;
  }

  private Injected resetRefuse(Backends backends, History history, String database)
      throws InterruptedException {
    mongoProxy.resetAll();
    redisProxy.resetAll();
    Thread redisSide = new Thread(() -> {
      try {
        redisProxy.refuse(REFUSAL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    redisSide.start();
    mongoProxy.refuse(REFUSAL.toMillis());
    redisSide.join();
    return new Injected(System.currentTimeMillis(), null, List.of());
  }

  /**
   * The black hole, under the in-process load and, at the same time, under HTTP load on three
   * serve JVMs (defaults but the request deadline) that reach MongoDB and Redis through the
   * proxies: every request must be answered within its deadline + 1 s.
   */
  private List<ChaosRow> blackHoleWithServes() throws Exception {
    ensureAuth();
    String database = "chaos_blackhole_serve_" + nonce;
    MongoCollection<Document> docs = direct.getDatabase(database).getCollection("docs");
    for (String strategy : strategies) {
      Load.seedReadInfo(docs, Load.docId(SERVE_WORKLOAD, strategy));
      Load.seedReadInfo(docs, Load.docId(SERVE_WARMUP, strategy));
    }
    List<ChildJvm> holeServes = new ArrayList<>();
    try {
      for (int i = 1; i <= 3; i++) {
        holeServes.add(ChildJvm.start("blackhole-serve-" + i, dir, Main.class.getName(),
            serveArgs(proxiedMongoUri(), proxiedRedisUri(), database, List.of())));
      }
      List<String> urls = urlsOf(holeServes);
      History history = new History();
      HttpClient http = httpClient();
      // A service under load is warm: a few marks per strategy on each JVM first (on documents
      // of their own, not checked), so the first requests do not time class loading and JIT.
      for (int i = 0; i < urls.size(); i++) {
        for (String strategy : strategies) {
          for (int w = 0; w < 3; w++) {
            request(http, urls.get(i), "warm" + i + "-" + strategy + w, SERVE_WARMUP, strategy);
          }
        }
      }
      AtomicLong seq = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (String strategy : strategies) {
        for (int t = 0; t < 3; t++) {
          Thread thread = new Thread(() -> {
            while (!stop.get()) {
              long n = seq.incrementAndGet();
              history.accept(request(http, urls.get((int) (n % urls.size())),
                  "serve" + (n % urls.size()) + "-" + n, SERVE_WORKLOAD, strategy));
              sleepQuietly(ThreadLocalRandom.current().nextInt(5, 25));
            }
          }, "chaos-blackhole-http-" + strategy + "-" + t);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      long[] holeEnd = new long[1];
      List<ChaosRow> rows = inProcess("blackhole", (backends, h, db) -> {
        Injected injected = blackHole(backends, h, db);
        holeEnd[0] = injected.recoveryFrom();
        return injected;
      });
      stop.set(true);
      for (Thread t : threads) {
        t.join(120_000);
      }
      for (String strategy : strategies) {
        List<Op> ops = history.ops().stream().filter(o -> o.strategy().equals(strategy)).toList();
        rows.add(checker.check("blackhole", SERVE_WORKLOAD, strategy, ops,
            FinalState.read(docs, Load.docId(SERVE_WORKLOAD, strategy)),
            new Recovery(holeEnd[0], settings.bound(strategy).toMillis(), ""), List.of()));
      }
      return rows;
    } finally {
      holeServes.forEach(ChildJvm::close);
    }
  }

  private Injected blackHole(Backends backends, History history, String database)
      throws InterruptedException {
    mongoProxy.blackHole(settings.blackHole().toMillis());
    Thread.sleep(settings.blackHole().toMillis());
    return new Injected(System.currentTimeMillis(), null, List.of());
  }

  /**
   * The holder JVM stops between read and write of one operation per strategy, holding the
   * locks; it is paused with SIGSTOP for twice the lease plus a second, then resumed.
   * Recovery: the others proceed within one lease (+ slack) of the pause.
   */
  private Injected pause(Backends backends, History history, String database) throws Exception {
    List<String> violations = new ArrayList<>();
    try (ChildJvm holder = ChildJvm.start("holder", dir, ChaosHolder.class.getName(),
        List.of(proxiedMongoUri(), proxiedRedisUri(), database, String.join(",", strategies),
            Long.toString(settings.mongoTimeout().toMillis())))) {
      List<String> other = new ArrayList<>();
      holder.await(l -> l.equals("HOLDING"), CHILD_START, other);
      other.stream().filter(l -> l.startsWith("NOT-HOLDING")).forEach(violations::add);
      long pausedAt = System.currentTimeMillis();
      Processes.signal(holder.pid(), "STOP");
      Thread.sleep(settings.lease().multipliedBy(2).plusSeconds(1).toMillis());
      Processes.signal(holder.pid(), "CONT");
      Writer stdin = new OutputStreamWriter(holder.process().getOutputStream(),
          StandardCharsets.UTF_8);
      stdin.write("GO\n");
      stdin.flush();
      List<String> lines = new ArrayList<>();
      holder.await(l -> l.equals("DONE"), CHILD_START, lines);
      lines.stream().map(Op::parse).filter(o -> o != null).forEach(history);
      return new Injected(pausedAt, settings.lease().plus(ChaosSettings.SLACK), violations);
    }
  }

  /** SIGKILL redis-server, restart it on the same port; a probe checks tokens only rise. */
  private Injected redisKill(Backends backends, History history, String database)
      throws Exception {
    List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong stop = new AtomicLong();
    Thread probe = new Thread(() -> {
      while (stop.get() == 0) {
        try {
          Optional<LockHandle> lock = backends.redisLocks.tryAcquire("probe");
          if (lock.isPresent()) {
            tokens.add(lock.get().token());
            lock.get().close();
          }
        } catch (RuntimeException e) {
          // Redis is down: the probe waits for it
        }
        sleepQuietly(50);
      }
    }, "chaos-token-probe");
    probe.start();
    Thread.sleep(500);
    redis.kill();
    Thread.sleep(REDIS_DOWN.toMillis());
    redis.restart();
    long restartedAt = System.currentTimeMillis();
    Thread.sleep(settings.phase().toMillis());
    stop.set(1);
    probe.join(30_000);
    List<String> violations = new ArrayList<>();
    synchronized (tokens) {
      for (int i = 1; i < tokens.size(); i++) {
        if (tokens.get(i) <= tokens.get(i - 1)) {
          violations.add("fencing token went backwards: " + tokens.get(i - 1) + " then "
              + tokens.get(i));
        }
      }
      say("  redis-kill: " + tokens.size() + " probe tokens, first " + (tokens.isEmpty() ? "-"
          : tokens.get(0)) + ", last " + (tokens.isEmpty() ? "-" : tokens.get(tokens.size() - 1)));
    }
    return new Injected(restartedAt, null, violations);
  }

  /**
   * {@code writeguard mongo --data} (its own server, not the memory-only one the other faults
   * use) is killed with SIGKILL under load and started again on the same port and directory
   * 1 s later; every operation it acknowledged before the kill must be in the final state.
   */
  private List<ChaosRow> mongoKill(String fault) throws Exception {
    try (DurableMongo durable = new DurableMongo(dir)) {
      String uri = durable.start();
      try (FaultProxy proxy = new FaultProxy("127.0.0.1", durable.port());
          MongoClient durableDirect = MongoClients.create(MongoTarget.settings(
              new ConnectionString(uri), 8, Duration.ofSeconds(30)))) {
        say("  mongo-kill: writeguard mongo --data on " + uri + " (pid " + durable.pid() + ")");
        return inProcess(fault, durableDirect,
            "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
            (backends, history, database) -> {
              durable.kill();
              Thread.sleep(MONGO_DOWN.toMillis());
              durable.restart();
              say("  mongo-kill: killed, restarted (pid " + durable.pid() + ")");
              return new Injected(System.currentTimeMillis(), null, List.of());
            });
      }
    }
  }

  // ---- serve ----------------------------------------------------------------------------

  private List<ChildJvm> serves;
  private List<String> serveUrls;
  private String serveDatabase;
  private JwtAuth auth;

  private Path secretFile;

  /** The JWT secret every serve JVM shares, written once. */
  private void ensureAuth() throws IOException {
    if (auth != null) {
      return;
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    secretFile = dir.resolve("jwt-secret");
    Files.write(secretFile, secret);
    auth = new JwtAuth(JwtSecret.of(secret, "chaos"));
  }

  /**
   * The arguments of a serve JVM on {@code database}; its request deadline is passed only when
   * it differs from serve's default, so an earlier build's serve can be measured the same way.
   */
  private List<String> serveArgs(String mongo, String redisUri, String database,
      List<String> more) {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0",
        "--mongo-uri", mongo, "--redis-uri", redisUri, "--database", database,
        "--jwt-secret-file", secretFile.toString()));
    if (!settings.deadline().equals(ChaosSettings.DEFAULT_DEADLINE)) {
      args.addAll(List.of("--request-deadline", settings.deadline().toMillis() + "ms"));
    }
    args.addAll(more);
    return args;
  }

  private void startServes() throws Exception {
    serveDatabase = "chaos_serve_" + nonce;
    ensureAuth();
    serves = new ArrayList<>();
    for (String name : List.of("serve-b", "serve-term", "serve-kill")) {
      serves.add(ChildJvm.start(name, dir, Main.class.getName(), serveArgs(
          mongoUri + (mongoUri.contains("?") ? "&" : "/?") + "directConnection=true",
          "redis://127.0.0.1:" + redis.port(), serveDatabase, List.of("--lock-wait",
          settings.lockWait().toMillis() + "ms", "--mongo-timeout",
          settings.mongoTimeout().toMillis() + "ms", "--shutdown-grace", "10s"))));
    }
    serveUrls = urlsOf(serves);
  }

  /**
   * Two serve JVMs share the load; one of them gets SIGTERM (graceful: in-flight requests
   * finish, new ones get 503 with Retry-After, locks are released at once, so the survivor
   * recovers within the lock wait) or SIGKILL (its locks stay until their lease ends: the
   * survivor recovers within one lease).
   */
  private List<ChaosRow> serve(String fault, boolean kill) throws Exception {
    if (serves == null) {
      startServes();
    }
    ChildJvm victim = serves.get(kill ? 2 : 1);
    String victimUrl = serveUrls.get(kill ? 2 : 1);
    String survivorUrl = serveUrls.get(0);
    MongoCollection<Document> docs = direct.getDatabase(serveDatabase).getCollection("docs");
    for (String strategy : strategies) {
      Load.seedReadInfo(docs, Load.docId(fault, strategy));
    }
    History history = new History();
    HttpClient http = httpClient();
    AtomicLong seq = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
    Map<String, AtomicInteger> atVictim = new ConcurrentHashMap<>();
    AtomicLong signalled = new AtomicLong(Long.MAX_VALUE);
    AtomicBoolean victimOnly = new AtomicBoolean();
    for (String strategy : strategies) {
      AtomicInteger inFlight = atVictim.computeIfAbsent(strategy, s -> new AtomicInteger());
      for (int t = 0; t < 6; t++) {
        Thread thread = new Thread(() -> {
          while (System.currentTimeMillis() < stopAt.get()) {
            long n = seq.incrementAndGet();
            // The victim gets two thirds of the load, until 2 s after the signal.
            boolean toVictim = (victimOnly.get() || n % 3 != 0)
                && System.currentTimeMillis() - signalled.get() < 2000; // no overflow
            if (toVictim) {
              inFlight.incrementAndGet();
            }
            history.accept(request(http, toVictim ? victimUrl : survivorUrl,
                (toVictim ? "victim" : "survivor") + "-" + fault + "-" + n, fault, strategy));
            if (toVictim) {
              inFlight.decrementAndGet();
            }
            sleepQuietly(ThreadLocalRandom.current().nextInt(5, 25));
          }
        }, "chaos-http-" + strategy + "-" + t);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
    }
    Thread.sleep(settings.phase().toMillis());
    // Signal while the victim has requests in flight on every lock strategy, so that it most
    // likely holds a document's lock at that moment (a SIGKILL then leaves it to its lease).
    long waitUntil = System.currentTimeMillis() + 5000;
    while (System.currentTimeMillis() < waitUntil && atVictim.entrySet().stream()
        .anyMatch(e -> e.getKey().endsWith("-lock") && e.getValue().get() < 2)) {
      Thread.sleep(2);
    }
    List<String> notes = new ArrayList<>();
    if (kill) {
      victimOnly.set(true); // for a moment only the victim takes the locks: catch it holding
      Thread.sleep(500);
      notes.add(freezeHoldingLocks(victim) ? "the victim held the mongo-lock and redis-lock"
          + " locks when killed" : "the victim held no lock when killed (one-lease wait not"
          + " exercised)");
      say("  serve-kill: " + notes.get(0));
    }
    long signalledAt = System.currentTimeMillis();
    signalled.set(signalledAt);
    victimOnly.set(false);
    if (kill) {
      Processes.signal(victim.pid(), "KILL");
    } else {
      Processes.signal(victim.pid(), "TERM");
    }
    Duration recoveryBound = kill ? SERVE_LEASE.plus(settings.lockWait()).plus(ChaosSettings.SLACK)
        : settings.lockWait().plus(ChaosSettings.SLACK);
    awaitSurvivorRecovery(history, signalledAt, recoveryBound);
    Thread.sleep(settings.phase().toMillis());
    stopAt.set(System.currentTimeMillis());
    for (Thread t : threads) {
      t.join(120_000);
    }
    List<String> violations = new ArrayList<>();
    if (!kill) {
      if (!victim.process().waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        violations.add("serve did not exit within 30 s of SIGTERM");
      } else if (victim.process().exitValue() != 0) {
        violations.add("serve exited with " + victim.process().exitValue() + " after SIGTERM");
      }
      violations.addAll(gracefulStopViolations(history.ops(), signalledAt));
    }
    List<ChaosRow> rows = new ArrayList<>();
    for (String strategy : strategies) {
      List<Op> ops = history.ops().stream().filter(o -> o.strategy().equals(strategy)).toList();
      rows.add(checker.check(fault, Load.READINFO, strategy, ops,
          FinalState.read(docs, Load.docId(fault, strategy)),
          new Recovery(signalledAt, recoveryBound.toMillis(), "survivor"),
          violations.stream().filter(v -> v.contains("strategy " + strategy) || !v.contains(
              "strategy ")).toList()).withNotes(strategy.endsWith("-lock") ? notes : List.of()));
    }
    return rows;
  }

  /**
   * Stops the victim with SIGSTOP at a moment when it holds the locks of both lock strategies'
   * documents, so that the SIGKILL that follows leaves them to their lease. Tries up to 100
   * times (resuming it in between); returns false if it never caught it holding both.
   */
  private boolean freezeHoldingLocks(ChildJvm victim) throws InterruptedException {
    boolean wantMongo = strategies.contains("mongo-lock");
    boolean wantRedis = strategies.contains("redis-lock");
    if (!wantMongo && !wantRedis) {
      return false;
    }
    MongoCollection<Document> locks = direct.getDatabase(serveDatabase)
        .getCollection("docs_locks");
    // Owners begin with the holder's pid: "<pid>-<uuid>" (MongoDB), "<pid>@<host>/.." (Redis).
    String mongoOwner = victim.pid() + "-";
    String redisOwner = victim.pid() + "@";
    try (io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(
        "redis://127.0.0.1:" + redis.port());
        var connection = client.connect()) {
      for (int attempt = 0; attempt < 100; attempt++) {
        Processes.signal(victim.pid(), "STOP");
        Thread.sleep(200); // bytes already on their way (a release) land
        boolean mongoHeld = !wantMongo || owner(locks.find(new Document("_id",
            "docs:" + Load.docId("serve-kill", "mongo-lock"))).first()).startsWith(mongoOwner);
        // A Redis lock is a hash whose field "o" is "owner:attempt" of the holder.
        String redisValue = connection.sync().hget("wg:lock:docs:"
            + Load.docId("serve-kill", "redis-lock"), "o");
        boolean redisHeld = !wantRedis || (redisValue != null && redisValue.startsWith(redisOwner));
        if (mongoHeld && redisHeld) {
          return true; // left stopped: the SIGKILL comes next
        }
        Processes.signal(victim.pid(), "CONT");
        Thread.sleep(ThreadLocalRandom.current().nextInt(20, 200));
      }
    }
    return false;
  }

  private static String owner(Document lock) {
    return lock == null || lock.getString("owner") == null ? "" : lock.getString("owner");
  }

  /** Waits until every strategy had an acknowledged survivor request sent after the signal. */
  private void awaitSurvivorRecovery(History history, long from, Duration bound)
      throws InterruptedException {
    long deadline = from + bound.toMillis() + ChaosSettings.SLACK.toMillis();
    while (System.currentTimeMillis() < deadline) {
      List<Op> ops = history.ops();
      boolean all = strategies.stream().allMatch(s -> ops.stream().anyMatch(o ->
          o.strategy().equals(s) && o.client().startsWith("survivor")
              && o.outcome() == Op.Outcome.ACK && o.startMillis() >= from));
      if (all) {
        return;
      }
      Thread.sleep(100);
    }
  }

  /**
   * A graceful stop: a request in flight at SIGTERM is answered (not cut), and a request sent
   * a second or more after it is refused with 503 and Retry-After, or not connected at all.
   */
  static List<String> gracefulStopViolations(List<Op> ops, long termAt) {
    List<String> violations = new ArrayList<>();
    for (Op op : ops) {
      if (!op.client().startsWith("victim")) {
        continue;
      }
      boolean inFlight = op.startMillis() < termAt && op.endMillis() > termAt;
      boolean after = op.startMillis() >= termAt + 1000;
      boolean answered = op.detail().startsWith("status=");
      if (inFlight && !answered) {
        violations.add("strategy " + op.strategy() + ": request " + op.id()
            + " in flight at SIGTERM was cut: " + op.detail());
      }
      if (after && answered && !(op.detail().startsWith("status=503")
          && op.detail().contains("retry-after="))) {
        violations.add("strategy " + op.strategy() + ": request " + op.id() + " sent "
            + (op.startMillis() - termAt) + " ms after SIGTERM got " + op.detail());
      }
    }
    return violations;
  }

  /** One mark through HTTP, recorded; the user is the operation's id. */
  private Op request(HttpClient http, String url, String id, String fault, String strategy) {
    int index = (int) (Math.abs(id.hashCode()) % Load.ITEMS);
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/docs/"
            + Load.docId(fault, strategy).toHexString() + "/infos/k0/s0/" + index + "/read?strategy="
            + strategy))
        .header("Authorization", "Bearer " + auth.issue(id, Duration.ofMinutes(30)))
        // Long enough to measure a request held for the whole black hole, not cut at the bound.
        .timeout(settings.bound(strategy).plus(settings.blackHole()).plus(ChaosSettings.SLACK))
        .POST(HttpRequest.BodyPublishers.noBody()).build();
    long startMillis = System.currentTimeMillis();
    long start = System.nanoTime();
    Op.Outcome outcome;
    String detail;
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      int status = response.statusCode();
      detail = "status=" + status + response.headers().firstValue("Retry-After")
          .map(v -> " retry-after=" + v).orElse("") + " " + abbreviate(response.body());
      if (status == 200) {
        outcome = Op.Outcome.ACK;
      } else if (status == 503 && !response.body().contains("shutting down")) {
        outcome = Op.Outcome.UNKNOWN; // a stall or an unconfirmed write may have applied it
      } else {
        outcome = Op.Outcome.FAIL; // refused before anything was written
      }
    } catch (ConnectException e) {
      outcome = Op.Outcome.FAIL; // never connected: never sent
      detail = "io=" + e;
    } catch (IOException e) {
      outcome = Op.Outcome.UNKNOWN;
      detail = "io=" + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = Op.Outcome.UNKNOWN;
      detail = "interrupted";
    }
    String client = id.substring(0, id.indexOf('-'));
    return new Op(id, Load.READINFO, strategy, client, outcome, startMillis,
        System.nanoTime() - start, 0, 0, false, detail);
  }

  private static String abbreviate(String body) {
    return body.length() <= 160 ? body : body.substring(0, 160) + "...";
  }

  // ---- helpers ----------------------------------------------------------------------------

  /** The base URL each serve JVM prints once it listens, in their order. */
  private static List<String> urlsOf(List<ChildJvm> serves) throws InterruptedException {
    List<String> urls = new ArrayList<>();
    for (ChildJvm serve : serves) {
      urls.add(serve.await(l -> l.startsWith("http://"), CHILD_START, new ArrayList<>()));
    }
    return urls;
  }

  /** The client of the HTTP load on serve JVMs. */
  private static HttpClient httpClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  private String proxiedMongoUri() {
    return "mongodb://127.0.0.1:" + mongoProxy.port() + "/?directConnection=true";
  }

  private String proxiedRedisUri() {
    return "redis://127.0.0.1:" + redisProxy.port();
  }

  private void say(String line) {
    progress.println(line);
    progress.flush();
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (serves != null) {
      serves.forEach(ChildJvm::close);
    }
    for (AutoCloseable c : new AutoCloseable[] {direct, mongoProxy, redisProxy, redis}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // closing anyway
      }
    }
    if (mongo != null) {
      mongo.process().destroy(); // SIGTERM: writeguard mongo stops cleanly
      try {
        mongo.process().waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      mongo.close();
    }
  }
}
