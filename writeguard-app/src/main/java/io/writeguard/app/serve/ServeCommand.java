package io.writeguard.app.serve;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.cli.MongoOptions;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.cli.RedisOptions;
import io.writeguard.app.cli.UsageException;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.update.RetryPolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writeguard serve}: the seed's {@code readInfo} route as an HTTP service (see
 * {@link ReadInfoApi} for the routes and docs/serve.md for the whole story).
 *
 * <p>Start-up: read the JWT secret (exit 2 without one), connect to MongoDB (the embedded
 * server when no URI is given), make every strategy, bind, and print the URL
 * ({@code http://127.0.0.1:PORT}) as the only line on stdout so scripts and tests can read
 * it. SIGTERM or SIGINT stops it gracefully ({@link ReadInfoServer#close}) with exit status
 * 0. Exit status 2 for bad options, a missing secret, an unreachable database or Redis, or a
 * port that cannot be bound. Not thread-safe: picocli makes one instance per invocation.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the seed's readInfo (mark as read) route over HTTP.",
      "Routes: POST /docs, GET /docs/{id}, POST /docs/{id}/infos/{key}/{skey}/{i}/read,",
      "GET /health (= /health/ready), GET /health/live, GET /metrics.",
      "Needs a JWT secret ($WRITEGUARD_JWT_SECRET or --jwt-secret-file); prints its URL on stdout."
    })
public final class ServeCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Mixin private MongoOptions mongo = new MongoOptions();

  /**
   * Redis for {@code redis-lock}, shared by every serve process; without one an embedded Redis
   * is started on the first {@code redis-lock} request (good for one process only).
   */
  @Mixin private RedisOptions redis = new RedisOptions();

  @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", paramLabel = "N", defaultValue = "8080",
      description = "Port to listen on, 0 for a free one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--strategy", paramLabel = "NAME", defaultValue = "atomic",
      description = "Default strategy of the mark route: naive, atomic, optimistic, local-lock,"
          + " mongo-lock, redis-lock, adaptive (default: ${DEFAULT-VALUE}); a request may pick"
          + " another with ?strategy=.")
  String strategy;

  @Option(names = "--jwt-secret-file", paramLabel = "FILE",
      description = "File holding the HS256 secret (default: $" + JwtSecret.ENV + ").")
  Path jwtSecretFile;

  @Option(names = "--database", paramLabel = "NAME", defaultValue = "writeguard",
      description = "Database (default: ${DEFAULT-VALUE}).")
  String database;

  @Option(names = "--collection", paramLabel = "NAME", defaultValue = "docs",
      description = "Collection of the documents (default: ${DEFAULT-VALUE}).")
  String collection;

  @Option(names = "--lock-wait", paramLabel = "TIME", defaultValue = "5s",
      description = "How long a lock strategy waits for a document's lock before answering 503"
          + " (default: ${DEFAULT-VALUE}).")
  String lockWait;

  @Option(names = "--request-deadline", paramLabel = "TIME", defaultValue = "10s",
      description = "The budget of one request: every MongoDB operation, Redis command and lock"
          + " wait it makes gets the time left, so it is answered within it plus 0.25 s"
          + " (default: ${DEFAULT-VALUE}).")
  String requestDeadline;

  @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "30",
      description = "Attempts of an optimistic mark before answering 409 (default:"
          + " ${DEFAULT-VALUE}).")
  int maxAttempts;

  @Option(names = "--retry-after", paramLabel = "TIME", defaultValue = "1s",
      description = "Retry-After of 409 and 503 answers (default: ${DEFAULT-VALUE}).")
  String retryAfter;

  @Option(names = "--max-body", paramLabel = "BYTES", defaultValue = "65536",
      description = "Largest request body; larger ones get 413 (default: ${DEFAULT-VALUE}).")
  int maxBody;

  @Option(names = "--shutdown-grace", paramLabel = "TIME", defaultValue = "10s",
      description = "How long a stop waits for requests in progress (default: ${DEFAULT-VALUE}).")
  String shutdownGrace;

  @Override
  public Integer call() {
    if (!MarkReadStrategies.NAMES.contains(strategy)) {
      throw new UsageException("--strategy must be one of " + String.join(", ",
          MarkReadStrategies.NAMES) + ", was '" + strategy + "'");
    }
    if (maxAttempts < 1) {
      throw new UsageException("--max-attempts must be >= 1, was " + maxAttempts);
    }
    redis.check();
    JwtSecret secret = JwtSecret.load(jwtSecretFile, System.getenv());
    ServeConfig config = config();
    Duration wait = Durations.parse("--lock-wait", lockWait, false);

    ServeMetrics metrics = new ServeMetrics();
    MongoTarget target = mongo.open(64);
    MongoLeaseLockService mongoLocks = null;
    LazyRedisLocks redisLocks = null;
    ReadInfoServer server;
    try {
      MongoDatabase db = target.client().getDatabase(database);
      MongoCollection<Document> docs = db.getCollection(collection);
      mongoLocks = MongoLeaseLockService.builder(db, collection + "_locks")
          .listener(metrics.listener()).build();
      redisLocks = new LazyRedisLocks(redis.uri(), metrics.listener());
      if (redisLocks.isConfigured() || strategy.equals("redis-lock")) {
        connectRedis(redisLocks);
      }
      MarkReadDeps deps = MarkReadDeps.builder(docs)
          .mongoLocks(mongoLocks)
          .redisLocks(redisLocks)
          .listener(metrics.listener())
          .lockWait(wait)
          .retryPolicy(RetryPolicy.builder()
              .maxAttempts(maxAttempts)
              .deadline(MarkReadDeps.DEFAULT_RETRY.deadline())
              .backoff(MarkReadDeps.DEFAULT_RETRY.baseBackoff(), MarkReadDeps.DEFAULT_RETRY.maxBackoff())
              .build())
          .build();
      Map<String, MarkReadStrategy> strategies = new LinkedHashMap<>();
      for (String name : MarkReadStrategies.NAMES) {
        strategies.put(name, MarkReadStrategies.create(name, deps));
      }
      LazyRedisLocks redisForReadiness = redisLocks;
      ReadInfoService service = new ReadInfoService(docs, strategies, strategy,
          Map.of("redis", () -> {
            if (!redisForReadiness.inUse()) {
              return false; // no Redis strategy has run: nothing to be ready for
            }
            redisForReadiness.ping();
            return true;
          }));
      try {
        server = ReadInfoServer.start(config, service, new JwtAuth(secret), metrics);
      } catch (IllegalStateException e) {
        throw new UsageException(e.getMessage(), e);
      }
    } catch (RuntimeException e) {
      closeQuietly(redisLocks);
      closeQuietly(mongoLocks);
      target.close();
      metrics.close();
      throw e;
    }
    server.onClose(metrics); // closed last: resources close in reverse order
    server.onClose(target);
    server.onClose(mongoLocks);
    server.onClose(redisLocks);

    Thread hook = new Thread(server::close, "writeguard-serve-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    CountDownLatch stop = new CountDownLatch(1);
    StopSignals.install(stop);
    PrintWriter out = spec.commandLine().getOut();
    out.println(server.url());
    out.flush();
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down; close() is idempotent
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println("writeguard serve: stopped " + server.url());
    err.flush();
    return 0;
  }

  private ServeConfig config() {
    try {
      return ServeConfig.builder()
          .host(host)
          .port(port)
          .maxBodyBytes(maxBody)
          .retryAfter(Durations.parse("--retry-after", retryAfter, false))
          .shutdownGrace(Durations.parse("--shutdown-grace", shutdownGrace, true))
          .requestDeadline(Durations.parse("--request-deadline", requestDeadline, false))
          .build();
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  private static void connectRedis(LazyRedisLocks locks) {
    try {
      locks.connect();
    } catch (LockBackendException e) {
      Throwable cause = e.getCause(); // RedisTarget's UsageException names the (redacted) URI
      throw new UsageException(cause instanceof UsageException ? cause.getMessage()
          : e.getMessage(), e);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // start-up already failed; that failure is the one to report
    }
  }
}
