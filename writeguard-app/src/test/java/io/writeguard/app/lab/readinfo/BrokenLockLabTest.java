package io.writeguard.app.lab.readinfo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.lab.LabCommand;
import io.writeguard.app.lab.Scenarios;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.LockReadInfo;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The lab must be able to fail a lock: a lease-lock strategy run on a lock that lets every
 * caller in at once is caught, by lost updates (a lock that never fences) or by lock
 * violations (a lock whose fence still works), and the run exits 1.
 *
 * <p>The bug this guards: the lab's lock strategies also filtered their write on the version
 * read, so a broken lock turned into counted conflicts and retries, "0 lost", exit 0.
 *
 * <p>The interleaving is forced: the first two marks of the run (one per client) meet at a
 * barrier between their fenced read and their write, both holding the "lock". The run has
 * {@code --group-commit off}: with it on, the two clients' marks of one document queue in
 * one combiner and only its leader takes the lock, so inside one process the lock has nobody
 * to exclude (across processes it has; see LockedUpdaterTest's broken-lock test).
 */
class BrokenLockLabTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** Grants every caller at once; {@code fencing}: each grant a higher token, else all 1. */
  private static final class EveryoneAtOnce implements LockService {
    private final boolean fencing;
    private final AtomicLong tokens = new AtomicLong();

    EveryoneAtOnce(boolean fencing) {
      this.fencing = fencing;
    }

    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      long token = fencing ? tokens.incrementAndGet() : 1;
      AtomicBoolean released = new AtomicBoolean();
      return new LockHandle() {
        @Override
        public String key() {
          return key;
        }

        @Override
        public long token() {
          return token;
        }

        @Override
        public boolean isLost() {
          return false;
        }

        @Override
        public boolean isReleased() {
          return released.get();
        }

        @Override
        public void close() {
          released.set(true);
        }
      };
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      return Optional.of(acquire(key, Duration.ZERO));
    }

    @Override
    public String backend() {
      return "broken";
    }
  }

  /** The first two read-change-writes meet between read and write; the rest run freely. */
  private static Runnable firstTwoMeet() {
    CyclicBarrier both = new CyclicBarrier(2);
    AtomicInteger calls = new AtomicInteger();
    return () -> {
      if (calls.incrementAndGet() <= 2) {
        try {
          both.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IllegalStateException("the two first marks did not meet", e);
        }
      }
    };
  }

  private JsonNode runLab(boolean fencing) throws Exception {
    LabStrategy<Mark> broken = new LabStrategy<>("mongo-lock", false, "a lock that is not one",
        context -> LockReadInfo.fenced("mongo-lock", context, new EveryoneAtOnce(fencing),
            () -> {}, firstTwoMeet()));
    Scenarios scenarios = new Scenarios(List.of(
        new ScenarioEntry<>(new ReadInfoScenario(), List.of(broken))));
    CommandLine cl = new CommandLine(new LabCommand(scenarios));
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    Path json = dir.resolve("lab.json");
    int status = cl.execute("--mongo-uri", TestMongo.uri(), "--clients", "2", "--docs", "1",
        "--ops", "40", "--warmup", "0s", "--group-commit", "off", "--json", json.toString());
    assertThat(status).as(out + "\n" + err).isEqualTo(LabCommand.EXIT_FAILED);
    return new ObjectMapper().readTree(json.toFile()).get("results").get(0);
  }

  @Test
  void aLockThatLetsEveryoneInAndNeverFencesLosesMarksAndFailsTheRun() throws Exception {
    JsonNode r = runLab(false);
    // Both read the same document, both replaced it: the first replace is erased.
    assertThat(r.get("lost_updates").asLong()).isPositive();
    assertThat(r.get("conflicts").asLong()).isZero(); // nothing absorbed the loss
    assertThat(err.toString()).contains("FAILED: mongo-lock lost");
  }

  @Test
  void aLockThatLetsEveryoneInButFencesIsCaughtAsLockViolations() throws Exception {
    JsonNode r = runLab(true);
    // The holder with the lower token read first; its write is refused by the fence.
    assertThat(r.get("fenced_rejections").asLong()).isPositive();
    assertThat(r.get("lock_violations").asLong()).isPositive();
    assertThat(r.get("lost_updates").asLong()).isZero();
    assertThat(err.toString()).contains("lock violation");
    assertThat(out.toString()).contains("lock viol.");
  }
}
