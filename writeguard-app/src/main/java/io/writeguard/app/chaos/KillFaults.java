package io.writeguard.app.chaos;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.app.chaos.Testbed.Injected;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The servers killed with SIGKILL under load and started again on the same port:
 * {@code redis-kill} (the fencing tokens must only rise across the restart) and
 * {@code mongo-kill} (a durable server: nothing it acknowledged may be lost). Stateless.
 */
final class KillFaults {
  private static final Duration REDIS_DOWN = Duration.ofSeconds(1);
  private static final Duration MONGO_DOWN = Duration.ofSeconds(1);

  static final Fault REDIS_KILL = new Fault("redis-kill",
      bed -> bed.inProcess("redis-kill", (backends, history, database) ->
          redisKill(bed, backends)));
  static final Fault MONGO_KILL = new Fault("mongo-kill", bed -> mongoKill(bed, "mongo-kill"));

  private KillFaults() {}

  /** SIGKILL redis-server, restart it on the same port; a probe checks tokens only rise. */
  private static Injected redisKill(Testbed bed, Backends backends) throws Exception {
    List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
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
        Testbed.sleepQuietly(50);
      }
    }, "chaos-token-probe");
    probe.start();
    Thread.sleep(500);
    bed.redis().kill();
    Thread.sleep(REDIS_DOWN.toMillis());
    bed.redis().restart();
    long restartedAt = System.currentTimeMillis();
    Thread.sleep(bed.settings().phase().toMillis());
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
      bed.say("  redis-kill: " + tokens.size() + " probe tokens, first " + (tokens.isEmpty()
          ? "-" : tokens.get(0)) + ", last "
          + (tokens.isEmpty() ? "-" : tokens.get(tokens.size() - 1)));
    }
    return new Injected(restartedAt, null, violations);
  }

  /**
   * {@code writeguard mongo --data} (its own server, not the memory-only one the other faults
   * use) is killed with SIGKILL under load and started again on the same port and directory
   * 1 s later; every operation it acknowledged before the kill must be in the final state.
   */
  private static List<ChaosRow> mongoKill(Testbed bed, String fault) throws Exception {
    try (DurableMongo durable = new DurableMongo(bed.dir())) {
      String uri = durable.start();
      try (FaultProxy proxy = new FaultProxy("127.0.0.1", durable.port());
          MongoClient durableDirect = MongoClients.create(MongoTarget.settings(
              new ConnectionString(uri), 8, Duration.ofSeconds(30)))) {
        bed.say("  mongo-kill: writeguard mongo --data on " + uri + " (pid " + durable.pid()
            + ")");
        return bed.inProcess(fault, durableDirect,
            "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
            (backends, history, database) -> {
              durable.kill();
              Thread.sleep(MONGO_DOWN.toMillis());
              durable.restart();
              bed.say("  mongo-kill: killed, restarted (pid " + durable.pid() + ")");
              return new Injected(System.currentTimeMillis(), null, List.of());
            });
      }
    }
  }
}
