package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.model.Updates;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** The retry loop against a scripted one-document store and a fake clock: no server, no sleeps. */
class UpdateLoopTest {
  private static final ServerAddress ADDRESS = new ServerAddress("db.example", 27017);

  private final FakeTime time = new FakeTime();
  private final RecordingListener listener = new RecordingListener();
  private final ScriptedStore store = new ScriptedStore("{_id: 1, count: 10, version: {$numberLong: '5'}}");

  private VersionedUpdater.Builder builder() {
    return new VersionedUpdater.Builder(store)
        .ticker(time.ticker())
        .sleeper(time.sleeper())
        .random(new Random(7))
        .listener(listener)
        .strategyName("optimistic-test");
  }

  private VersionedUpdater updater(RetryPolicy retry) {
    return builder().retryPolicy(retry).build();
  }

  private static RetryPolicy attempts(int n) {
    return RetryPolicy.builder().maxAttempts(n).deadline(Duration.ofMinutes(1))
        .backoff(Duration.ofMillis(10), Duration.ofMillis(80)).build();
  }

  /** Increments {@code count} from the value read, the way a read-modify-write does. */
  private static Mutation increment(Document current) {
    return Mutation.update(Updates.set("count", current.getInteger("count") + 1));
  }

  @Test
  void succeedsAtOnceWithoutAConflict() {
    UpdateOutcome outcome = updater(attempts(3)).update(1, UpdateLoopTest::increment);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(outcome.version()).isEqualTo(6);
    assertThat(outcome.written()).isTrue();
    assertThat(outcome.document()).get().satisfies(d -> assertThat(d.get("count")).isEqualTo(11));
    assertThat(store.filters).containsExactly(BsonDocument.parse("{_id: 1, version: {$numberLong: '5'}}"));
    assertThat(store.updates).containsExactly(BsonDocument.parse(
        "{$set: {count: 11}, $inc: {version: {$numberLong: '1'}}}"));
    assertThat(listener.events).containsExactly("attempt 1", "success 1");
    assertThat(listener.scopes).containsOnly(new OperationScope("things", "optimistic-test"));
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void aConflictIsRetriedFromAFreshRead() {
    store.writeScript.add(store.otherWriter());
    List<Long> versionsSeen = new ArrayList<>();
    UpdateOutcome outcome = updater(attempts(3)).update(1, current -> {
      versionsSeen.add(current.getLong("version"));
      return increment(current);
    });
    assertThat(versionsSeen).containsExactly(5L, 6L);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(outcome.version()).isEqualTo(7);
    assertThat(store.reads).isEqualTo(2);
    assertThat(store.probes).isEqualTo(1);
    assertThat(store.state.getString("by").getValue()).isEqualTo("other");
    assertThat(listener.events)
        .containsExactly("attempt 1", "conflict 1", "retry 1", "attempt 2", "success 2");
    assertThat(time.sleeps()).hasSize(1);
    assertThat(time.sleeps().get(0)).isBetween(Duration.ZERO, Duration.ofMillis(10));
  }

  @Test
  void givesUpWhenTheAttemptsRunOut() {
    store.defaultWriteStep = store.otherWriter();
    // Blind pacing: every lost round counts (ContentionPacingTest covers the paced count).
    VersionedUpdater updater = builder().retryPolicy(attempts(4)).contentionPacing(false).build();
    assertThatThrownBy(() -> updater.update(1, UpdateLoopTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.attempts()).isEqualTo(4);
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.ATTEMPTS);
          assertThat(e.lastSeenVersion()).isEqualTo(OptionalLong.of(9));
          assertThat(e.key()).isEqualTo(1);
          assertThat(e.collection()).isEqualTo("things");
          assertThat(e.getCause()).isNull();
          assertThat(e.getMessage()).contains("update of things _id=1", "no attempts left",
              "last seen version 9", "version conflict", "4 attempts",
              e.elapsed().toMillis() + "ms");
        });
    assertThat(listener.events).endsWith("conflict 4", "exhausted 4");
    assertThat(store.version()).isEqualTo(9); // only the other writer wrote
    // Three backoffs, each within its doubling, capped window.
    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps).hasSize(3);
    assertThat(sleeps.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(10));
    assertThat(sleeps.get(1)).isBetween(Duration.ZERO, Duration.ofMillis(20));
    assertThat(sleeps.get(2)).isBetween(Duration.ZERO, Duration.ofMillis(40));
  }

  /** Always draws the top of the jitter window, so the deadline arithmetic is exact. */
  static final RandomGenerator TOP = new RandomGenerator() {
    @Override
    public long nextLong() {
      return 0;
    }

    @Override
    public long nextLong(long origin, long bound) {
      return bound - 1;
    }
  };

  @Test
  void givesUpWhenTheNextBackoffWouldPassTheDeadline() {
    store.defaultWriteStep = (Runnable) () -> {
      store.otherWriter().run();
      time.advance(Duration.ofMillis(20)); // each write takes 20ms
    };
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofMillis(300))
        .backoff(Duration.ofMillis(100), Duration.ofMillis(100)).build();
    // Blind pacing: the policy's backoff (ContentionPacingTest covers the paced one).
    VersionedUpdater updater =
        builder().retryPolicy(retry).random(TOP).contentionPacing(false).build();
    // t=20 sleep 100 -> t=140 sleep 100 -> t=260: 260+100 >= 300, give up after attempt 3.
    assertThatThrownBy(() -> updater.update(1, UpdateLoopTest::increment))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
          assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
          assertThat(e.attempts()).isEqualTo(3);
          assertThat(e.elapsed()).isEqualTo(Duration.ofMillis(260));
          assertThat(e.getMessage()).contains("deadline reached", "260ms");
        });
    assertThat(time.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
  }

  @Test
  void aMissingDocumentIsNotFoundAtOnce() {
    store.state = null;
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isInstanceOfSatisfying(DocumentNotFoundException.class, e -> {
          assertThat(e.attempts()).isEqualTo(1);
          assertThat(e.getMessage()).contains("found no document with that _id");
        });
    assertThat(listener.events).containsExactly("attempt 1", "failure DocumentNotFoundException");
  }

  @Test
  void aDeleteBetweenReadAndWriteIsNotFoundNotAConflict() {
    store.writeScript.add(store.deleter());
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isInstanceOfSatisfying(DocumentNotFoundException.class, e -> {
          assertThat(e.attempts()).isEqualTo(1);
          assertThat(e.getMessage()).contains("deleted after it was read");
        });
    assertThat(store.probes).isEqualTo(1);
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void aWriteErrorThatCertainlyWroteNothingIsRetried() {
    store.writeScript.add(new MongoSocketOpenException("connection refused", ADDRESS));
    UpdateOutcome outcome = updater(attempts(3)).update(1, UpdateLoopTest::increment);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(store.state.getInt32("count").getValue()).isEqualTo(11);
    assertThat(listener.events).containsExactly("attempt 1", "retry 1", "attempt 2", "success 2");
  }

  @Test
  void aWriteThatMayHaveBeenAppliedIsNeverRetried() {
    store.writeScript.add(new MongoSocketReadException("connection reset", ADDRESS));
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isInstanceOfSatisfying(WriteOutcomeUnknownException.class, e -> {
          assertThat(e.fromVersion()).isEqualTo(5);
          assertThat(e.attempts()).isEqualTo(1);
          assertThat(e.getCause()).isInstanceOf(MongoSocketReadException.class);
          assertThat(e.getMessage()).contains("may or may not have been applied",
              "connection reset");
        });
    assertThat(store.filters).hasSize(1);
    assertThat(listener.events).containsExactly("attempt 1", "failure WriteOutcomeUnknownException");
  }

  @Test
  void failedReadsAndProbesAreRetried() {
    store.readErrors.add(new MongoSocketReadException("reset", ADDRESS));
    store.writeScript.add(store.otherWriter());
    store.probeErrors.add(new MongoSocketReadException("reset", ADDRESS));
    UpdateOutcome outcome = updater(attempts(5)).update(1, UpdateLoopTest::increment);
    // 1: read fails; 2: write misses, probe fails; 3: succeeds.
    assertThat(outcome.attempts()).isEqualTo(3);
    assertThat(outcome.version()).isEqualTo(7);
  }

  @Test
  void transientErrorsAreNotRetriedWhenSwitchedOff() {
    store.writeScript.add(new MongoSocketOpenException("connection refused", ADDRESS));
    RetryPolicy retry = attempts(5).toBuilder().retryTransientErrors(false).build();
    assertThatThrownBy(() -> updater(retry).update(1, UpdateLoopTest::increment))
        .isExactlyInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("retryTransientErrors is off")
        .hasCauseInstanceOf(MongoSocketOpenException.class);
  }

  @Test
  void exhaustionByTransientErrorsCarriesTheLastCause() {
    store.defaultWriteStep = new MongoSocketOpenException("connection refused", ADDRESS);
    assertThatThrownBy(() -> updater(attempts(3)).update(1, UpdateLoopTest::increment))
        .isInstanceOf(RetriesExhaustedException.class)
        .hasMessageContaining("last failure: transient error")
        .hasMessageContaining("connection refused")
        .hasCauseInstanceOf(MongoSocketOpenException.class);
  }

  @Test
  void duplicateKeyAndValidationFailuresAreNotRetried() {
    store.writeScript.add(MongoErrorsTest.command(11000, "DuplicateKey"));
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isInstanceOf(DuplicateKeyWriteException.class)
        .hasMessageContaining("update of things _id=1 would duplicate a unique key")
        .hasMessageContaining("1 attempt,");
    store.writeScript.add(MongoErrorsTest.writeError(121));
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isInstanceOf(DocumentValidationException.class)
        .hasMessageContaining("rejected by the collection's validator");
    assertThat(store.filters).hasSize(2);
    assertThat(store.version()).isEqualTo(5);
  }

  @Test
  void otherServerErrorsFailWithTheCause() {
    MongoCommandException immutable = MongoErrorsTest.command(66, "ImmutableField");
    store.writeScript.add(immutable);
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isExactlyInstanceOf(UpdateFailedException.class)
        .hasCause(immutable);
    IllegalStateException bug = new IllegalStateException("not the server's");
    store.writeScript.add(bug);
    assertThatThrownBy(() -> updater(attempts(5)).update(1, UpdateLoopTest::increment))
        .isSameAs(bug);
  }

  @Test
  void anInterruptedBackoffRestoresTheFlag() {
    store.writeScript.add(store.otherWriter());
    VersionedUpdater updater = builder().retryPolicy(attempts(3))
        .sleeper(d -> {
          throw new InterruptedException("stop");
        }).build();
    try {
      assertThatThrownBy(() -> updater.update(1, UpdateLoopTest::increment))
          .isInstanceOf(WriteGuardInterruptedException.class)
          .hasMessageContaining("before attempt 2 of the update of things _id=1");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aThrowingListenerDoesNotBreakTheUpdate() {
    store.writeScript.add(store.otherWriter());
    WriteGuardListener broken = new WriteGuardListener() {
      @Override
      public void onAttempt(OperationScope scope, Object key, int attempt) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onConflict(OperationScope scope, Object key, int attempt) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
        throw new IllegalStateException("listener bug");
      }
    };
    UpdateOutcome outcome = builder().retryPolicy(attempts(3)).listener(broken).build()
        .update(1, UpdateLoopTest::increment);
    assertThat(outcome.attempts()).isEqualTo(2);
  }

  @Test
  void aMutatorExceptionEndsTheUpdateUnchanged() {
    IllegalStateException thrown = new IllegalStateException("business rule");
    assertThatThrownBy(() -> updater(attempts(3)).update(1, current -> {
      throw thrown;
    })).isSameAs(thrown);
    assertThatThrownBy(() -> updater(attempts(3)).update(1, current -> null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mutator returned null for _id=1; return Mutation.none()");
    assertThat(store.filters).isEmpty();
    assertThat(listener.events).contains("failure IllegalStateException");
  }

  @Test
  void eachAttemptGetsItsOwnCopySoAFailedAttemptLeavesNoTrace() {
    store.writeScript.add(store.otherWriter());
    List<Document> given = new ArrayList<>();
    updater(attempts(3)).update(1, current -> {
      given.add(current);
      boolean sawLeftovers = current.containsKey("scratch");
      current.put("scratch", "attempt " + given.size()); // mutating its own copy is fine
      return Mutation.update(Updates.set("sawLeftovers", sawLeftovers));
    });
    assertThat(given).hasSize(2);
    assertThat(given.get(0)).isNotSameAs(given.get(1));
    assertThat(store.state.getBoolean("sawLeftovers").getValue()).isFalse();
    assertThat(store.state.containsKey("scratch")).isFalse();
  }

  @Test
  void theCallersUpdateIsNeverChanged() {
    BsonDocument mine = BsonDocument.parse("{$inc: {count: 2}, $set: {a: 1}}");
    BsonDocument before = mine.clone();
    store.writeScript.add(store.otherWriter());
    updater(attempts(3)).update(1, current -> Mutation.update(mine));
    assertThat(mine).isEqualTo(before);
    assertThat(store.updates.get(1)).isEqualTo(BsonDocument.parse(
        "{$inc: {count: 2, version: {$numberLong: '1'}}, $set: {a: 1}}"));
  }

  @Test
  void theIncrementKeepsTheCallersOperatorsInTheirOrder() {
    BsonDocument withInc = BsonDocument.parse("{$set: {a: 1}, $inc: {count: 2}, $max: {m: 3}}");
    BsonDocument without = BsonDocument.parse("{$max: {m: 3}, $set: {a: 1}}");
    updater(attempts(3)).update(1, current -> Mutation.update(withInc));
    updater(attempts(3)).update(1, current -> Mutation.update(without));
    assertThat(store.updates.get(0).toJson()).isEqualTo(BsonDocument.parse("{$set: {a: 1},"
        + " $inc: {count: 2, version: {$numberLong: '1'}}, $max: {m: 3}}").toJson());
    assertThat(store.updates.get(1).toJson()).isEqualTo(BsonDocument.parse("{$max: {m: 3},"
        + " $set: {a: 1}, $inc: {version: {$numberLong: '1'}}}").toJson());
  }

  @Test
  void aReplacementGetsTheNextVersionOnACopy() {
    Document mine = new Document("_id", 1).append("name", "new").append("version", 5L);
    UpdateOutcome outcome = updater(attempts(3)).update(1, current -> Mutation.replace(mine));
    assertThat(outcome.version()).isEqualTo(6);
    assertThat(mine.get("version")).isEqualTo(5L);
    assertThat(store.replacements.get(0).get("version")).isEqualTo(6L);
    assertThat(store.state).isEqualTo(
        BsonDocument.parse("{_id: 1, name: 'new', version: {$numberLong: '6'}}"));
    // The usual shape: change the copy you were given and hand it back.
    UpdateOutcome again = updater(attempts(3)).update(1, current -> {
      current.put("name", "newer");
      return Mutation.replace(current);
    });
    assertThat(again.version()).isEqualTo(7);
    assertThat(again.document()).get().satisfies(d -> assertThat(d.get("name")).isEqualTo("newer"));
  }

  @Test
  void aReplacementMayNotSetTheVersionOrChangeTheId() {
    VersionedUpdater updater = updater(attempts(3));
    assertThatThrownBy(() -> updater.update(1,
            c -> Mutation.replace(new Document("name", "x").append("version", 9L))))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining("replacement touches 'version'")
        .hasMessageContaining("carries 9 but the document was read at version 5");
    assertThatThrownBy(() -> updater.update(1,
            c -> Mutation.replace(new Document("_id", 2).append("name", "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replacement changes _id from BsonInt32{value=1} to BsonInt32{value=2}");
    assertThatThrownBy(() -> updater.update(1,
            c -> Mutation.replace(new Document("$set", new Document("a", 1)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator key '$set'");
    assertThat(store.filters).isEmpty();
  }

  /** _id is compared as BSON: the stored value in another type is another _id. */
  @Test
  void aReplacementKeepsTheIdOnlyInItsStoredType() {
    VersionedUpdater updater = updater(attempts(3));
    assertThatThrownBy(() -> updater.update(1,
            c -> Mutation.replace(new Document("_id", 1L).append("name", "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replacement changes _id from BsonInt32{value=1} to BsonInt64{value=1}");
    assertThatThrownBy(() -> updater.update(1,
            c -> Mutation.replace(new Document("_id", 1.0).append("name", "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replacement changes _id from BsonInt32{value=1} to BsonDouble{value=1.0}");
    assertThat(store.filters).isEmpty();
    UpdateOutcome kept = updater.update(1,
        c -> Mutation.replace(new Document("_id", 1).append("name", "x")));
    assertThat(kept.written()).isTrue();
  }

  @Test
  void theGuardStopsUpdatesThatTouchTheVersion() {
    VersionedUpdater updater = updater(attempts(3));
    assertThatThrownBy(() -> updater.update(1, c -> Mutation.update(Updates.set("version", 2L))))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("$set touches 'version'");
    assertThatThrownBy(() -> updater.update(1, c -> Mutation.update(Updates.inc("version", 1))))
        .hasMessageStartingWith("$inc touches 'version'");
    assertThatThrownBy(() -> updater.update(1, c -> Mutation.update(new Document("name", "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got the plain field 'name'; use Mutation.replace");
    assertThatThrownBy(() -> updater.update(1, c -> Mutation.update(new Document())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one operator");
    assertThat(store.filters).isEmpty();
    assertThat(store.version()).isEqualTo(5);
  }

  @Test
  void nothingIsWrittenForNone() {
    UpdateOutcome outcome = updater(attempts(3)).update(1, current -> {
      current.put("count", 999); // ignored: the outcome reports the document as stored
      return Mutation.none();
    });
    assertThat(outcome.written()).isFalse();
    assertThat(outcome.version()).isEqualTo(5);
    assertThat(outcome.document()).get().satisfies(d -> assertThat(d.get("count")).isEqualTo(10));
    assertThat(store.filters).isEmpty();
  }

  @Test
  void aLegacyDocumentIsAdoptedAtomically() {
    store.state = BsonDocument.parse("{_id: 1, count: 10}");
    UpdateOutcome outcome = updater(attempts(3)).update(1, UpdateLoopTest::increment);
    assertThat(store.filters).containsExactly(
        BsonDocument.parse("{_id: 1, version: {$exists: false}}"));
    assertThat(outcome.version()).isEqualTo(1);
    assertThat(store.state.getInt64("version").getValue()).isEqualTo(1);
  }

  @Test
  void aLegacyDocumentIsRefusedWhenThePolicySaysSo() {
    store.state = BsonDocument.parse("{_id: 1, count: 10}");
    VersionedUpdater refusing = builder().versionPolicy(VersionPolicy.builder()
        .missingVersion(VersionPolicy.MissingVersion.REFUSE).build()).build();
    assertThatThrownBy(() -> refusing.update(1, UpdateLoopTest::increment))
        .isInstanceOf(InvalidVersionException.class)
        .hasMessageContaining("_id=1")
        .hasMessageContaining("refuses legacy documents");
    assertThat(store.filters).isEmpty();
  }

  @Test
  void theUpdateOnePathReturnsNoDocument() {
    store.writeScript.add(store.otherWriter());
    UpdateOutcome outcome = updater(attempts(3)).updateOne(1, UpdateLoopTest::increment);
    assertThat(outcome.document()).isEmpty();
    assertThat(outcome.version()).isEqualTo(7);
    assertThat(outcome.attempts()).isEqualTo(2);
  }
}
