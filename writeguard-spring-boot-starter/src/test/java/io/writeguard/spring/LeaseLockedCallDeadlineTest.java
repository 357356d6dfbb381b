package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code writeguard.lock.call-deadline}: a @LeaseLocked call's lock wait, its method and its
 * release run under one deadline, which the library's operations read (a stalled server then
 * cannot hold the call past it: StalledServerDeadlineTest in the core). Unset, no deadline is
 * imposed beyond each part's own.
 */
class LeaseLockedCallDeadlineTest {
  private static final List<String> SEEN = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class))
      .withPropertyValues("writeguard.lock.default-service=seeing")
      .withBean("seeing", LockService.class, SeeingLocks::new)
      .withBean(Locked.class);

  public static class Locked {
    @LeaseLocked(key = "'k'")
    public void work() {
      SEEN.add("method " + seen());
    }
  }

  private static String seen() {
    return Deadlines.left().map(d -> d.compareTo(Duration.ofSeconds(2)) <= 0 && !d.isNegative()
        ? "within 2s" : "later: " + d).orElse("none");
  }

  @Test
  void theWaitTheMethodAndTheReleaseShareTheCallDeadline() {
    SEEN.clear();
    runner.withPropertyValues("writeguard.lock.call-deadline=2s").run(context -> {
      context.getBean(Locked.class).work();
      assertThat(SEEN).containsExactly("acquire within 2s", "method within 2s",
          "release within 2s");
      assertThat(Deadlines.left()).isEmpty(); // not left on the thread after the call
    });
  }

  @Test
  void withoutTheSettingNoDeadlineIsImposed() {
    SEEN.clear();
    runner.run(context -> {
      context.getBean(Locked.class).work();
      assertThat(SEEN).containsExactly("acquire none", "method none", "release none");
    });
  }

  @Test
  void aCallDeadlineThatIsNotPositiveStopsTheStartNamingIt() {
    runner.withPropertyValues("writeguard.lock.call-deadline=0s").run(context -> {
      assertThat(context).hasFailed();
      Throwable root = context.getStartupFailure();
      while (root.getCause() != null) {
        root = root.getCause();
      }
      assertThat(root).hasMessageContaining("writeguard.lock.call-deadline");
    });
  }

  static final class SeeingLocks implements LockService {
    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      SEEN.add("acquire " + seen());
      return new LockHandle() {
        private boolean released;

        @Override
        public String key() {
          return key;
        }

        @Override
        public long token() {
          return 1;
        }

        @Override
        public boolean isLost() {
          return false;
        }

        @Override
        public boolean isReleased() {
          return released;
        }

        @Override
        public void close() {
          if (!released) {
            released = true;
            SEEN.add("release " + seen());
          }
        }
      };
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      return Optional.of(acquire(key, Duration.ZERO));
    }

    @Override
    public String backend() {
      return "seeing";
    }
  }
}
