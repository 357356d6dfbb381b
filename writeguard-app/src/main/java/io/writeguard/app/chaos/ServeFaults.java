package io.writeguard.app.chaos;

import com.mongodb.client.MongoCollection;
import io.lettuce.core.RedisClient;
import io.writeguard.app.chaos.Checker.FinalState;
import io.writeguard.app.chaos.Checker.Recovery;
import io.writeguard.app.chaos.Processes.ChildJvm;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * A {@code writeguard serve} JVM stopped under HTTP load while a second one takes its share:
 * {@code serve-term} (SIGTERM, a graceful stop) and {@code serve-kill} (SIGKILL while it holds
 * the locks). Both run on the serve JVMs the two share ({@link ServeJvms#shared}). Stateless.
 */
final class ServeFaults {
  /** The lease of {@code writeguard serve}'s lock services (their builders' default). */
  static final Duration SERVE_LEASE = Duration.ofSeconds(30);

  static final Fault SERVE_TERM = new Fault("serve-term", bed -> serve(bed, "serve-term", false));
  static final Fault SERVE_KILL = new Fault("serve-kill", bed -> serve(bed, "serve-kill", true));

  private ServeFaults() {}

  /**
   * Two serve JVMs share the load; one of them gets SIGTERM (graceful: in-flight requests
   * finish, new ones get 503 with Retry-After, locks are released at once, so the survivor
   * recovers within the lock wait) or SIGKILL (its locks stay until their lease ends: the
   * survivor recovers within one lease).
   */
  private static List<ChaosRow> serve(Testbed bed, String fault, boolean kill) throws Exception {
    ChaosSettings settings = bed.settings();
    List<String> strategies = bed.strategies();
    String mongoUri = bed.mongoUri();
    ServeJvms serves = bed.serves();
    ServeJvms.Group group = serves.shared(
        mongoUri + (mongoUri.contains("?") ? "&" : "/?") + "directConnection=true",
        "redis://127.0.0.1:" + bed.redis().port(), bed.database("serve"));
    ChildJvm victim = group.jvms().get(kill ? 2 : 1);
    String victimUrl = group.urls().get(kill ? 2 : 1);
    String survivorUrl = group.urls().get(0);
    MongoCollection<Document> docs = bed.direct().getDatabase(group.database())
        .getCollection("docs");
    for (String strategy : strategies) {
      Load.seedReadInfo(docs, Load.docId(fault, strategy));
    }
    History history = new History();
    HttpClient http = ServeJvms.httpClient();
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
            history.accept(serves.request(http, toVictim ? victimUrl : survivorUrl,
                (toVictim ? "victim" : "survivor") + "-" + fault + "-" + n, fault, strategy));
            if (toVictim) {
              inFlight.decrementAndGet();
            }
            Testbed.sleepQuietly(ThreadLocalRandom.current().nextInt(5, 25));
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
      notes.add(freezeHoldingLocks(bed, group, victim)
          ? "the victim held the mongo-lock and redis-lock locks when killed"
          : "the victim held no lock when killed (one-lease wait not exercised)");
      bed.say("  serve-kill: " + notes.get(0));
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
    awaitRecovery(strategies, history, signalledAt, s -> recoveryBound, "survivor");
    Thread.sleep(settings.phase().toMillis());
    stopAt.set(System.currentTimeMillis());
    for (Thread t : threads) {
      t.join(120_000);
    }
    List<String> violations = new ArrayList<>();
    if (!kill) {
      if (!victim.process().waitFor(30, TimeUnit.SECONDS)) {
        violations.add("serve did not exit within 30 s of SIGTERM");
      } else if (victim.process().exitValue() != 0) {
        violations.add("serve exited with " + victim.process().exitValue() + " after SIGTERM");
      }
      violations.addAll(gracefulStopViolations(history.ops(), signalledAt));
    }
    List<ChaosRow> rows = new ArrayList<>();
    for (String strategy : strategies) {
      List<Op> ops = history.ops().stream().filter(o -> o.strategy().equals(strategy)).toList();
      rows.add(bed.checker().check(fault, Load.READINFO, strategy, ops,
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
  private static boolean freezeHoldingLocks(Testbed bed, ServeJvms.Group group, ChildJvm victim)
      throws InterruptedException {
    List<String> strategies = bed.strategies();
    boolean wantMongo = strategies.contains("mongo-lock");
    boolean wantRedis = strategies.contains("redis-lock");
    if (!wantMongo && !wantRedis) {
      return false;
    }
    MongoCollection<Document> locks = bed.direct().getDatabase(group.database())
        .getCollection("docs_locks");
    // Owners begin with the holder's pid: "<pid>-<uuid>" (MongoDB), "<pid>@<host>/.." (Redis).
    String mongoOwner = victim.pid() + "-";
    String redisOwner = victim.pid() + "@";
    try (RedisClient client = RedisClient.create("redis://127.0.0.1:" + bed.redis().port());
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

  /**
   * Waits until every strategy had an acknowledged request of a client named {@code client...}
   * sent at or after {@code from}, or until the latest of their recovery bounds (plus slack)
   * has passed: the load keeps running long enough for a recovery to be seen.
   */
  static void awaitRecovery(List<String> strategies, History history, long from,
      Function<String, Duration> boundOf, String client) throws InterruptedException {
    long longest = strategies.stream().mapToLong(s -> boundOf.apply(s).toMillis()).max()
        .orElse(0);
    long deadline = from + longest + ChaosSettings.SLACK.toMillis();
    while (System.currentTimeMillis() < deadline) {
      List<Op> ops = history.ops();
      boolean all = strategies.stream().allMatch(s -> ops.stream().anyMatch(o ->
          o.strategy().equals(s) && o.client().startsWith(client)
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
}
