package io.writeguard.app.chaos;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.chaos.Checker.FinalState;
import io.writeguard.app.chaos.Checker.Recovery;
import io.writeguard.app.chaos.Testbed.Injected;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * The faults a {@link FaultProxy} injects between the clients and the servers: every
 * connection reset, then connections refused ({@code reset-refuse}), and MongoDB black-holed:
 * connections accepted, nothing answered ({@code blackhole}). Stateless.
 */
final class NetworkFaults {
  /** How long both proxies refuse connections. */
  private static final Duration REFUSAL = Duration.ofSeconds(2);
  /** The documents the serve JVMs of the black hole are warmed up on. */
  private static final String SERVE_WARMUP = "serve-warmup";

  /** Every connection through both proxies reset, then refused for {@link #REFUSAL}. */
  static final Fault RESET_REFUSE = new Fault("reset-refuse",
      bed -> bed.inProcess("reset-refuse", (backends, history, database) -> resetRefuse(bed)));
  /** MongoDB black-holed under the in-process load and under HTTP load on serve JVMs. */
  static final Fault BLACKHOLE = new Fault("blackhole", NetworkFaults::blackHoleWithServes);

  private NetworkFaults() {}

  private static Injected resetRefuse(Testbed bed) throws InterruptedException {
    FaultProxy mongoProxy = bed.mongoProxy();
    FaultProxy redisProxy = bed.redisProxy();
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
  private static List<ChaosRow> blackHoleWithServes(Testbed bed) throws Exception {
    List<String> strategies = bed.strategies();
    ChaosSettings settings = bed.settings();
    String database = bed.database("blackhole_serve");
    MongoCollection<Document> docs = bed.direct().getDatabase(database).getCollection("docs");
    for (String strategy : strategies) {
      Load.seedReadInfo(docs, Load.docId(Load.SERVE_WORKLOAD, strategy));
      Load.seedReadInfo(docs, Load.docId(SERVE_WARMUP, strategy));
    }
    ServeJvms serves = bed.serves();
    try (ServeJvms.Group hole = serves.start(
        List.of("blackhole-serve-1", "blackhole-serve-2", "blackhole-serve-3"),
        bed.proxiedMongoUri(), bed.proxiedRedisUri(), database, List.of())) {
      List<String> urls = hole.urls();
      History history = new History();
      HttpClient http = ServeJvms.httpClient();
      // A service under load is warm: a few marks per strategy on each JVM first (on documents
      // of their own, not checked), so the first requests do not time class loading and JIT.
      for (int i = 0; i < urls.size(); i++) {
        for (String strategy : strategies) {
          for (int w = 0; w < 3; w++) {
            serves.request(http, urls.get(i), "warm" + i + "-" + strategy + w, SERVE_WARMUP,
                strategy);
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
              history.accept(serves.request(http, urls.get((int) (n % urls.size())),
                  "serve" + (n % urls.size()) + "-" + n, Load.SERVE_WORKLOAD, strategy));
              Testbed.sleepQuietly(ThreadLocalRandom.current().nextInt(5, 25));
            }
          }, "chaos-blackhole-http-" + strategy + "-" + t);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      long[] holeEnd = new long[1];
      List<ChaosRow> rows = bed.inProcess("blackhole", (backends, h, db) -> {
        Injected injected = blackHole(bed);
        holeEnd[0] = injected.recoveryFrom();
        return injected;
      });
      ServeFaults.awaitRecovery(strategies, history, holeEnd[0],
          s -> serveRecoveryBound(settings, s), "serve");
      stop.set(true);
      for (Thread t : threads) {
        t.join(120_000);
      }
      for (String strategy : strategies) {
        List<Op> ops = history.ops().stream().filter(o -> o.strategy().equals(strategy)).toList();
        rows.add(bed.checker().check("blackhole", Load.SERVE_WORKLOAD, strategy, ops,
            FinalState.read(docs, Load.docId(Load.SERVE_WORKLOAD, strategy)),
            new Recovery(holeEnd[0], serveRecoveryBound(settings, strategy).toMillis(), ""),
            List.of()));
      }
      return rows;
    }
  }

  /**
   * The recovery bound of a serve row: the operation bound, but for mongo-lock one serve lease +
   * lock wait + slack, as after {@code serve-kill}: the hole is on MongoDB, so a release sent
   * into it is lost and the lock frees itself only when its lease runs out (the documented
   * fallback). The other strategies' locks (Redis, serve's in-process lock for adaptive) are
   * released as usual.
   */
  static Duration serveRecoveryBound(ChaosSettings settings, String strategy) {
    if (strategy.equals("mongo-lock")) {
      return ServeFaults.SERVE_LEASE.plus(settings.lockWait()).plus(ChaosSettings.SLACK);
    }
    return settings.bound(strategy);
  }

  private static Injected blackHole(Testbed bed) throws InterruptedException {
    Duration hole = bed.settings().blackHole();
    bed.mongoProxy().blackHole(hole.toMillis());
    Thread.sleep(hole.toMillis());
    return new Injected(System.currentTimeMillis(), null, List.of());
  }
}
