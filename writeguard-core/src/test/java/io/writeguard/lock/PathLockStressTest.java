package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.path.FieldPath;
import io.writeguard.testing.Concurrently;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Concurrent writers on overlapping and disjoint field paths of two documents, for a bounded
 * time. Each document has four leaf counters; a holder of some paths does read-yield-write on
 * every leaf its paths cover, so two holders of overlapping paths running at once would lose an
 * increment. Independently of the counters, a registry of active holders checks that no two
 * conflicting locks are ever held at the same time. Requests take 1-3 paths listed in random
 * order (deadlock would hang the bounded wait), and some use very short timeouts that race the
 * grants.
 */
class PathLockStressTest {
  private static final int THREADS = 16;
  private static final int DOCS = 2;
  private static final String[] LOCKABLE = {"", "a", "a.x", "a.y", "a.x.0", "a.x.1", "b", "b.z"};
  private static final String[] LEAVES = {"a.x.0", "a.x.1", "a.y", "b.z"};
  private static final Duration RUN_FOR = Duration.ofSeconds(3);

  /** The test's own notion of conflict, written independently of the code under test. */
  static boolean overlap(String p, String q) {
    return p.isEmpty() || q.isEmpty() || p.equals(q) || p.startsWith(q + ".") || q.startsWith(p + ".");
  }

  static boolean covers(List<String> lockPaths, String leaf) {
    return lockPaths.stream().anyMatch(p -> overlap(p, leaf));
  }

  /** Every lock currently held, by document: checked and updated under its own monitor. */
  static final class ActiveHolders {
    private final List<List<List<String>>> active = new ArrayList<>();
    private int conflicts;

    ActiveHolders() {
      for (int d = 0; d < DOCS; d++) {
        active.add(new ArrayList<>());
      }
    }

    synchronized void enter(int doc, List<String> paths) {
      for (List<String> other : active.get(doc)) {
        for (String p : paths) {
          for (String q : other) {
            if (overlap(p, q)) {
              conflicts++;
            }
          }
        }
      }
      active.get(doc).add(paths);
    }

    synchronized void leave(int doc, List<String> paths) {
      active.get(doc).remove(paths); // an equal list held by someone else would be a conflict already counted
    }

    synchronized int conflicts() {
      return conflicts;
    }
  }

  @Test
  void overlappingPathsNeverRunTogetherAndEveryTotalIsExact() throws Exception {
    PathLockService locks = PathLockService.create();
    long[][] counters = new long[DOCS][LEAVES.length]; // plain: only the locks protect them
    AtomicLongArray expected = new AtomicLongArray(DOCS * LEAVES.length);
    ActiveHolders holders = new ActiveHolders();
    AtomicLong operations = new AtomicLong();
    AtomicLong shortTimeouts = new AtomicLong();
    AtomicInteger longTimeouts = new AtomicInteger();
    long stopAt = System.nanoTime() + RUN_FOR.toNanos();

    Concurrently.run(THREADS, Duration.ofSeconds(60), thread -> { // a deadlock would end here
      ThreadLocalRandom random = ThreadLocalRandom.current();
      while (System.nanoTime() < stopAt) {
        int doc = random.nextInt(DOCS);
        List<String> wanted = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
          // The whole document is rare, or it would serialise everything.
          String p = LOCKABLE[random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(LOCKABLE.length - 1)];
          if (!wanted.contains(p)) {
            wanted.add(p);
          }
        }
        boolean impatient = random.nextInt(4) == 0;
        Duration timeout = impatient ? Duration.ofNanos(random.nextLong(5_000, 1_000_000)) : Duration.ofSeconds(30);
        PathLockHandle handle;
        try {
          handle = wanted.contains("")
              ? locks.acquire("doc-" + doc, timeout)
              : locks.acquire("doc-" + doc, wanted.stream().map(FieldPath::parse).toList(), timeout);
        } catch (LockTimeoutException e) {
          if (impatient) {
            shortTimeouts.incrementAndGet();
          } else {
            longTimeouts.incrementAndGet();
          }
          continue;
        }
        holders.enter(doc, wanted);
        for (int leaf = 0; leaf < LEAVES.length; leaf++) {
          if (covers(wanted, LEAVES[leaf])) {
            long read = counters[doc][leaf];
            Thread.yield();
            counters[doc][leaf] = read + 1;
            expected.incrementAndGet(doc * LEAVES.length + leaf);
          }
        }
        holders.leave(doc, wanted);
        handle.close();
        operations.incrementAndGet();
      }
    });

    assertThat(holders.conflicts()).as("conflicting locks held at the same time").isZero();
    assertThat(longTimeouts.get()).as("30 s waits that timed out (deadlock or starvation)").isZero();
    for (int doc = 0; doc < DOCS; doc++) {
      for (int leaf = 0; leaf < LEAVES.length; leaf++) {
        assertThat(counters[doc][leaf]).as("doc %d leaf %s", doc, LEAVES[leaf])
            .isEqualTo(expected.get(doc * LEAVES.length + leaf))
            .isPositive();
      }
    }
    assertThat(operations.get()).isPositive();
    assertThat(shortTimeouts.get()).as("short timeouts that raced grants").isPositive();
    assertThat(locks.size()).as("busy documents left").isZero();
  }
}
