package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Updates;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.bson.BsonInt64;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Contention pacing with a fake clock, a recording sleeper and a scripted store: the backoff
 * scales with the round, a round lost to another writer's write is not charged, one lost
 * without the version moving is, and the deadline bounds every call. No server, no sleeps.
 */
class ContentionPacingTest {
  /** Always the top of the jitter window, so a sleep shows the window itself. */
  private static final RandomGenerator TOP = UpdateLoopTest.TOP;

  private static final Duration ROUND = Duration.ofMillis(2);

  private final FakeTime time = new FakeTime();
  private final RecordingListener listener = new RecordingListener();
  private final ScriptedStore store =
      new ScriptedStore("{_id: 1, count: 10, version: {$numberLong: '5'}}");

  private static RetryPolicy policy(int attempts, Duration deadline) {
    return RetryPolicy.builder().maxAttempts(attempts).deadline(deadline)
        .backoff(Duration.ofMillis(5), Duration.ofMillis(40)).build();
  }

  private VersionedUpdater updater(RetryPolicy retry) {
    return new VersionedUpdater.Builder(store).ticker(time.ticker()).sleeper(time.sleeper())
        .random(TOP).listener(listener).retryPolicy(retry).build();
  }

  private static Mutation increment(Document current) {
    return Mutation.update(Updates.set("count", current.getInteger("count") + 1));
  }

  /** Another writer's write lands before ours, and every write takes one round. */
  private Runnable beatenByAnotherWriter() {
    return () -> {
      time.advance(ROUND);
      store.otherWriter().run();
    };
  }

  @Test
  void theWindowIsTheLostRoundDoublingPerRetryCappedByThePolicy() {
    ContentionPacing pacing = new ContentionPacing(policy(10, Duration.ofSeconds(5)));
    long round = ROUND.toNanos();
    assertThat(pacing.afterConflict(round, 1, TOP)).isEqualTo(ROUND);
    assertThat(pacing.afterConflict(round, 2, TOP)).isEqualTo(ROUND.multipliedBy(2));
    assertThat(pacing.afterConflict(round, 3, TOP)).isEqualTo(ROUND.multipliedBy(4));
    // 2ms * 2^4 = 32ms, but the policy's window for retry 5 is min(40, 5 * 16) = 40ms: 32ms
    assertThat(pacing.afterConflict(round, 5, TOP)).isEqualTo(Duration.ofMillis(32));
    // 2ms * 2^5 = 64ms is above the policy's 40ms cap
    assertThat(pacing.afterConflict(round, 6, TOP)).isEqualTo(Duration.ofMillis(40));
    // a round slower than the policy's first window is capped by it (5ms)
    assertThat(pacing.afterConflict(Duration.ofMillis(30).toNanos(), 1, TOP))
        .isEqualTo(Duration.ofMillis(5));
    // no overflow for a huge round or retry number
    assertThat(pacing.afterConflict(Long.MAX_VALUE, Integer.MAX_VALUE, TOP))
        .isEqualTo(Duration.ofMillis(40));
    assertThat(pacing.afterConflict(round, Integer.MAX_VALUE, TOP))
        .isEqualTo(Duration.ofMillis(40));
    // a round not measured (zero) or a policy without backoff: no wait at all
    assertThat(pacing.afterConflict(0, 3, TOP)).isZero();
    RetryPolicy none = RetryPolicy.builder().backoff(Duration.ZERO, Duration.ZERO).build();
    assertThat(new ContentionPacing(none).afterConflict(round, 1, TOP)).isZero();
    // full jitter: the bottom of the window is zero
    assertThat(pacing.afterConflict(round, 1, new Random(1) {
      @Override
      public long nextLong(long origin, long bound) {
        return origin;
      }
    })).isZero();
  }

  @Test
  void onlyARoundLostToAVersionThatMovedOnIsFree() {
    ContentionPacing pacing = new ContentionPacing(RetryPolicy.defaults());
    assertThat(pacing.chargesConflict(OptionalLong.of(5), OptionalLong.of(6))).isFalse();
    assertThat(pacing.chargesConflict(OptionalLong.of(5), OptionalLong.of(5))).isTrue();
    assertThat(pacing.chargesConflict(OptionalLong.of(5), OptionalLong.of(4))).isTrue();
    assertThat(pacing.chargesConflict(OptionalLong.empty(), OptionalLong.of(1))).isTrue();
    assertThat(pacing.chargesConflict(OptionalLong.of(5), OptionalLong.empty())).isTrue();
    RetryPacing blind = RetryPacing.blind(RetryPolicy.defaults());
    assertThat(blind.chargesConflict(OptionalLong.of(5), OptionalLong.of(6))).isTrue();
  }

  @Test
  void roundsLostToAnotherWritersWritesDoNotUseUpTheAttempts() {
    for (int i = 0; i < 7; i++) {
      store.writeScript.add(beatenByAnotherWriter());
    }
    store.defaultWriteStep = (Runnable) () -> time.advance(ROUND);
    UpdateOutcome outcome = updater(policy(3, Duration.ofSeconds(5)))
        .update(1, ContentionPacingTest::increment);
    assertThat(outcome.attempts()).isEqualTo(8);
    assertThat(outcome.version()).isEqualTo(5 + 7 + 1);
    assertThat(store.state.getInt32("count").getValue()).isEqualTo(11);
    // each lost round took 2ms: windows 2, 4, 8, 16, 32, then the policy's 40ms cap
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(2), Duration.ofMillis(4),
        Duration.ofMillis(8), Duration.ofMillis(16), Duration.ofMillis(32),
        Duration.ofMillis(40), Duration.ofMillis(40));
    assertThat(listener.events).endsWith("conflict 7", "retry 7", "attempt 8", "success 8");
  }

  @Test
  void theSameRoundsExhaustTheAttemptsWhenPacingIsOff() {
    for (int i = 0; i < 7; i++) {
      store.writeScript.add(beatenByAnotherWriter());
    }
    VersionedUpdater blind = new VersionedUpdater.Builder(store).ticker(time.ticker())
        .sleeper(time.sleeper()).random(TOP).retryPolicy(policy(3, Duration.ofSeconds(5)))
        .contentionPacing(false).build();
    assertThatThrownBy(() -> blind.update(1, ContentionPacingTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.attempts()).isEqualTo(3);
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.ATTEMPTS);
        });
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(5), Duration.ofMillis(10));
  }

  @Test
  void aRoundLostWithoutTheVersionMovingOnIsCharged() {
    // A foreign write that puts the version back: the write misses, nobody made progress.
    store.defaultWriteStep = (Runnable) () -> {
      time.advance(ROUND);
      store.state.put("version", new BsonInt64(store.version() - 1));
    };
    assertThatThrownBy(() -> updater(policy(3, Duration.ofSeconds(5)))
        .update(1, ContentionPacingTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.attempts()).isEqualTo(3);
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.ATTEMPTS);
        });
  }

  @Test
  void theDeadlineStillBoundsACallThatKeepsLosingToOtherWriters() {
    store.defaultWriteStep = beatenByAnotherWriter();
    Duration deadline = Duration.ofMillis(200);
    assertThatThrownBy(() -> updater(policy(3, deadline))
        .update(1, ContentionPacingTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
          assertThat(e.attempts()).isGreaterThan(3);
          assertThat(e.elapsed()).isLessThanOrEqualTo(deadline);
          assertThat(e.lastSeenVersion()).isEqualTo(OptionalLong.of(5 + e.attempts()));
        });
    // the caller slept only while a retry could still start before the deadline
    Duration slept = time.sleeps().stream().reduce(Duration.ZERO, Duration::plus);
    assertThat(slept).isLessThan(deadline);
    assertThat(store.state.getInt32("count").getValue()).isEqualTo(10); // nothing of ours
  }

  @Test
  void aRetryIsNotStartedUnlessTwoMoreRoundsFitBeforeTheDeadline() {
    store.defaultWriteStep = beatenByAnotherWriter(); // every round takes 2ms and loses
    // t=2 lost, backoff 2 (+4 kept free: 8 < 11) -> t=4; t=6 lost, backoff 4 (+4: 14 >= 11):
    // give up. Without the room kept free it would sleep to t=10 and run a round to t=12,
    // past the deadline.
    assertThatThrownBy(() -> updater(policy(3, Duration.ofMillis(11)))
        .update(1, ContentionPacingTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
          assertThat(e.attempts()).isEqualTo(2);
          assertThat(e.elapsed()).isEqualTo(Duration.ofMillis(6));
        });
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(2));
    ContentionPacing pacing = new ContentionPacing(RetryPolicy.defaults());
    assertThat(pacing.reserveNanos(ROUND.toNanos())).isEqualTo(ROUND.multipliedBy(2).toNanos());
    assertThat(pacing.reserveNanos(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(RetryPacing.blind(RetryPolicy.defaults()).reserveNanos(ROUND.toNanos())).isZero();
  }

  @Test
  void aTransientErrorBacksOffByThePolicyNotByTheRound() {
    store.readErrors.add(new com.mongodb.MongoSocketReadException("reset",
        new com.mongodb.ServerAddress("db.example", 27017)));
    store.defaultWriteStep = (Runnable) () -> time.advance(ROUND);
    UpdateOutcome outcome = updater(policy(3, Duration.ofSeconds(5)))
        .update(1, ContentionPacingTest::increment);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(5)); // the policy's window
  }
}
