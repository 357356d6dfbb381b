package io.writeguard.app.chaos;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The lock holder of the pause fault, run as its own JVM by the coordinator:
 * {@code java -cp ... io.writeguard.app.chaos.ChaosHolder MONGO_URI REDIS_URI DATABASE
 * STRATEGIES MONGO_TIMEOUT_MS}.
 *
 * <p>It starts one operation per workload and read-change-write strategy; each stops between
 * its read and its write (holding the lock, for the lock strategies) and waits. When all are
 * there it prints {@code HOLDING}; the coordinator then stops this JVM with SIGSTOP for longer
 * than the lease (the lock watchdogs freeze with it, so the leases run out), resumes it with
 * SIGCONT and writes {@code GO} on stdin. The operations then write late: the fence must
 * refuse them. Each operation's record is printed as an {@link Op#toLine()} line, then
 * {@code DONE}. Not for users; not thread-safe.
 */
public final class ChaosHolder {
  /** Strategies with a gap between read and write to pause in ({@code atomic} has none). */
  static final List<String> HOLDABLE = List.of("naive", "optimistic", "mongo-lock",
      "redis-lock", "adaptive");

  /** How long each operation may keep trying to reach its pause. */
  private static final Duration REACH_TIMEOUT = Duration.ofSeconds(50);

  private ChaosHolder() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    List<String> strategies = new ArrayList<>(Arrays.asList(args[3].split(",")));
    strategies.retainAll(HOLDABLE);
    // The held operations are stopped on purpose for longer than any request deadline; they
    // are exempt from the bounds, and a deadline must not end them before their late write.
    ChaosSettings settings = ChaosSettings.of(true, Duration.ofMillis(Long.parseLong(args[4])),
        Duration.ofMinutes(2));
    int held = strategies.size() * Load.WORKLOADS.size();
    CountDownLatch inside = new CountDownLatch(held);
    CountDownLatch go = new CountDownLatch(1);
    List<Op> ops = java.util.Collections.synchronizedList(new ArrayList<>());
    try (Backends backends = new Backends(settings, args[0], args[1], args[2])) {
      Load load = new Load(backends, ops::add, "holder", strategies, 0);
      List<Thread> threads = new ArrayList<>();
      for (String strategy : strategies) {
        for (String workload : Load.WORKLOADS) {
          Thread t = new Thread(() -> {
            long giveUpAt = System.currentTimeMillis() + REACH_TIMEOUT.toMillis();
            while (true) {
              long[] readAt = {0};
              Long[] readToken = {null};
              Backends.HOOK.set(() -> {
                Backends.HOOK.remove(); // hold the first attempt only
                readAt[0] = System.currentTimeMillis();
                readToken[0] = LedgerOps.LAST_TOKEN.get(); // the counter's lock strategies only
                inside.countDown();
                await(go);
              });
              Op op = load.run(workload, strategy, true);
              Backends.HOOK.remove();
              if (readAt[0] == 0 && System.currentTimeMillis() < giveUpAt) {
                // It ended before its read (on a busy machine a lock wait or the read itself can
                // run out): an ordinary operation. Try again, so that one of them is held.
                ops.add(op);
                continue;
              }
              // The checker needs when, and with which token, the paused read happened: writes
              // after it must be fenced.
              ops.add(new Op(op.id(), op.workload(), op.strategy(), op.client(), op.outcome(),
                  op.startMillis(), op.latencyNanos(), op.amount(), op.fencedRejections(), true,
                  "read=" + readAt[0] + (readToken[0] == null ? "" : " readToken=" + readToken[0])
                  + " " + op.detail()));
              return;
            }
          }, "holder-" + workload + "-" + strategy);
          threads.add(t);
          t.start();
        }
      }
      if (!inside.await(REACH_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
        out.println("NOT-HOLDING " + inside.getCount() + " of " + held + " did not get there");
      }
      out.println("HOLDING");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
          StandardCharsets.UTF_8));
      in.readLine(); // GO, written after SIGCONT
      go.countDown();
      for (Thread t : threads) {
        t.join(120_000);
      }
      synchronized (ops) {
        ops.forEach(op -> out.println(op.toLine()));
      }
      out.println("DONE");
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
