package io.writeguard.app.chaos;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.writeguard.app.chaos.Checker.FinalState;
import io.writeguard.app.chaos.Checker.Recovery;
import io.writeguard.app.chaos.Processes.ChildJvm;
import io.writeguard.app.chaos.Processes.RedisProcess;
import io.writeguard.app.cli.MainClass;
import io.writeguard.app.cli.MongoTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * What the faults of a chaos run are injected into, on the embedded default, started once for
 * the whole run: MongoDB in its own JVM ({@code writeguard mongo}), Redis as a redis-server
 * child, and a {@link FaultProxy} in front of each. The coordinator's own client threads work
 * through the proxies; the pause fault adds a holder JVM ({@link ChaosHolder}), the serve faults
 * serve JVMs ({@link ServeJvms}).
 *
 * <p>Most faults run {@link #inProcess}: a fresh database, the load for a phase, the fault, the
 * load for another phase, then the final state read directly (not through the proxy) and the
 * history handed to the {@link Checker}. Not thread-safe: one run, driven by one thread.
 */
final class Testbed implements AutoCloseable {
  private final ChaosSettings settings;
  private final List<String> strategies;
  private final Path dir;
  private final PrintWriter progress;
  private final Checker checker;
  private final ServeJvms serves;
  private final String nonce = Long.toString(System.currentTimeMillis() % 1_000_000);
  private ChildJvm mongo;
  private String mongoUri;
  private RedisProcess redis;
  private FaultProxy mongoProxy;
  private FaultProxy redisProxy;
  private MongoClient direct;

  Testbed(ChaosSettings settings, List<String> strategies, Path dir, PrintWriter progress) {
    this.settings = settings;
    this.strategies = strategies;
    this.dir = dir;
    this.progress = progress;
    this.checker = new Checker(settings);
    this.serves = new ServeJvms(settings, dir);
  }

  /** Starts MongoDB ({@code writeguard mongo} in a child JVM), Redis and the two proxies. */
  void start() throws IOException, InterruptedException {
    mongo = ChildJvm.start("mongo", dir, MainClass.NAME, List.of("mongo"));
    mongoUri = mongo.await(l -> l.startsWith("mongodb://"), ChildJvm.READY_WITHIN,
        new ArrayList<>());
    redis = new RedisProcess();
    ConnectionString cs = new ConnectionString(mongoUri);
    String[] hostPort = cs.getHosts().get(0).split(":");
    mongoProxy = new FaultProxy(hostPort[0], Integer.parseInt(hostPort[1]));
    redisProxy = new FaultProxy("127.0.0.1", redis.port());
    direct = MongoClients.create(MongoTarget.settings(cs, 8, Duration.ofSeconds(30)));
    say("MongoDB " + mongoUri + " (pid " + mongo.pid() + "), Redis port " + redis.port()
        + ", proxies " + mongoProxy.port() + " and " + redisProxy.port());
  }

  /** Runs {@code fault} and returns its rows. */
  List<ChaosRow> run(Fault fault) throws Exception {
    say("fault " + fault.name() + " ...");
    return fault.body().run(this);
  }

  /** What an injected fault leaves for the checker. */
  record Injected(long recoveryFrom, Duration recoveryBound, List<String> violations) {}

  /** A fault injected while the load of {@link #inProcess} runs. */
  interface Injection {
    Injected inject(Backends backends, History history, String database) throws Exception;
  }

  /** The load through the MongoDB proxy; the final state read directly. */
  List<ChaosRow> inProcess(String fault, Injection injection) throws Exception {
    return inProcess(fault, direct, proxiedMongoUri(), injection);
  }

  /** The load through {@code proxiedMongoUri}; the final state read with {@code direct}. */
  List<ChaosRow> inProcess(String fault, MongoClient direct, String proxiedMongoUri,
      Injection injection) throws Exception {
    String database = database(fault.replace('-', '_'));
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

  ChaosSettings settings() {
    return settings;
  }

  List<String> strategies() {
    return strategies;
  }

  /** Where the child JVMs' logs and the durable server's data go. */
  Path dir() {
    return dir;
  }

  Checker checker() {
    return checker;
  }

  /** A fresh database name for {@code purpose}, unique to this run. */
  String database(String purpose) {
    return "chaos_" + purpose + "_" + nonce;
  }

  /** A client of the MongoDB JVM that does not go through the proxy. */
  MongoClient direct() {
    return direct;
  }

  /** The MongoDB JVM's own URI (not the proxy's). */
  String mongoUri() {
    return mongoUri;
  }

  RedisProcess redis() {
    return redis;
  }

  FaultProxy mongoProxy() {
    return mongoProxy;
  }

  FaultProxy redisProxy() {
    return redisProxy;
  }

  /** The serve JVMs of the run; those it holds are closed with it. */
  ServeJvms serves() {
    return serves;
  }

  String proxiedMongoUri() {
    return "mongodb://127.0.0.1:" + mongoProxy.port() + "/?directConnection=true";
  }

  String proxiedRedisUri() {
    return "redis://127.0.0.1:" + redisProxy.port();
  }

  /** One line of progress for the user. */
  void say(String line) {
    progress.println(line);
    progress.flush();
  }

  static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    serves.close();
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
        mongo.process().waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      mongo.close();
    }
  }
}
