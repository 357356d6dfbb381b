package io.writeguard.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientException;
import com.mongodb.MongoException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Retry decisions against errors carrying each label, with a fake clock and fake sessions. */
class TransactionRunnerTest {
  private final ScriptedSessions sessions = new ScriptedSessions();
  private final FakeTime time = new FakeTime();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger bodyRuns = new AtomicInteger();

  private TransactionRunner.Builder runner() {
    return TransactionRunner.builder(sessions)
        .ticker(time.ticker())
        .sleeper(time.sleeper())
        .listener(new WriteGuardListener() {
          @Override
          public void onTransactionRetry(String errorLabel, int attempt) {
            events.add(errorLabel + "#" + attempt);
          }
        });
  }

  private static MongoException labelled(String label) {
    MongoException e = new MongoException(112, "WriteConflict");
    e.addLabel(label);
    return e;
  }

  @Test
  void commitsOnceWhenNothingFails() {
    String result = runner().build().run(s -> {
      bodyRuns.incrementAndGet();
      return "ok";
    });
    assertThat(result).isEqualTo("ok");
    assertThat(bodyRuns).hasValue(1);
    assertThat(sessions.log).containsExactly("start", "commit", "close");
    assertThat(events).isEmpty();
  }

  @Test
  void transientErrorInTheBodyRunsTheWholeBodyAgain() {
    String result = runner().build().run(s -> {
      if (bodyRuns.incrementAndGet() < 3) {
        throw labelled(TransactionRunner.TRANSIENT_TRANSACTION_ERROR);
      }
      return "third time";
    });
    assertThat(result).isEqualTo("third time");
    assertThat(sessions.log).containsExactly(
        "start", "abort", "start", "abort", "start", "commit", "close");
    assertThat(events).containsExactly("TransientTransactionError#1", "TransientTransactionError#2");
    assertThat(time.sleeps()).hasSize(2);
  }

  @Test
  void unknownCommitResultRetriesTheCommitButNotTheBody() {
    sessions.commitFailures.add(labelled(TransactionRunner.UNKNOWN_TRANSACTION_COMMIT_RESULT));
    sessions.commitFailures.add(labelled(TransactionRunner.UNKNOWN_TRANSACTION_COMMIT_RESULT));
    runner().build().run(s -> bodyRuns.incrementAndGet());
    assertThat(bodyRuns).hasValue(1);
    assertThat(sessions.log).containsExactly("start", "commit", "commit", "commit", "close");
    assertThat(events).containsExactly(
        "UnknownTransactionCommitResult#1", "UnknownTransactionCommitResult#2");
  }

  @Test
  void transientErrorOnCommitRunsTheBodyAgain() {
    sessions.commitFailures.add(labelled(TransactionRunner.TRANSIENT_TRANSACTION_ERROR));
    runner().build().run(s -> bodyRuns.incrementAndGet());
    assertThat(bodyRuns).hasValue(2);
    assertThat(sessions.log).containsExactly("start", "commit", "abort", "start", "commit", "close");
    assertThat(events).containsExactly("TransientTransactionError#1");
  }

  @Test
  void unlabelledMongoErrorIsNotRetried() {
    MongoException duplicate = new MongoException(11000, "E11000 duplicate key");
    assertThatThrownBy(() -> runner().build().run(s -> {
      bodyRuns.incrementAndGet();
      throw duplicate;
    }))
        .isInstanceOf(TransactionFailedException.class)
        .isNotInstanceOf(TransactionRetriesExhaustedException.class)
        .hasCause(duplicate)
        .hasMessageContaining("attempt 1")
        .hasMessageContaining("code 11000");
    assertThat(bodyRuns).hasValue(1);
    assertThat(sessions.log).containsExactly("start", "abort", "close");
    assertThat(events).isEmpty();
  }

  @Test
  void unlabelledCommitErrorAbortsWithoutRetry() {
    MongoException boom = new MongoException(8000, "commit exploded");
    sessions.commitFailures.add(boom);
    assertThatThrownBy(() -> runner().build().run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOf(TransactionFailedException.class)
        .hasMessageContaining("the commit failed")
        .hasCause(boom);
    assertThat(bodyRuns).hasValue(1);
  }

  @Test
  void businessExceptionFromTheBodyAbortsAndPassesThroughUnchanged() {
    IllegalStateException business = new IllegalStateException("insufficient funds");
    assertThatThrownBy(() -> runner().build().run(s -> {
      throw business;
    })).isSameAs(business);
    assertThat(sessions.log).containsExactly("start", "abort", "close");
  }

  /** Regression (issue 17): a refused abort left the transaction open on the server. */
  @Test
  void aBodyThatFailsInterruptedIsStillAbortedAndTheFlagKept() {
    IllegalStateException cancelled = new IllegalStateException("cancelled");
    try {
      assertThatThrownBy(() -> runner().build().run(s -> {
        Thread.currentThread().interrupt();
        throw cancelled;
      })).isSameAs(cancelled);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(sessions.log).containsExactly("start", "abort", "close");
  }

  @Test
  void givesUpAtTheDeadlineWithoutSleepingPastIt() {
    TransactionRunner r = runner().deadline(Duration.ofMillis(200)).build();
    assertThatThrownBy(() -> r.run(s -> {
      bodyRuns.incrementAndGet();
      throw labelled(TransactionRunner.TRANSIENT_TRANSACTION_ERROR);
    }))
        .isInstanceOfSatisfying(TransactionRetriesExhaustedException.class, e -> {
          assertThat(e.lastLabel()).isEqualTo("TransientTransactionError");
          assertThat(e.attempts()).isEqualTo(bodyRuns.get());
          assertThat(e.elapsed()).isLessThan(Duration.ofMillis(200));
        })
        .hasMessageContaining("deadline (200ms)");
    long slept = time.sleeps().stream().mapToLong(Duration::toNanos).sum();
    assertThat(Duration.ofNanos(slept)).isLessThan(Duration.ofMillis(200));
    assertThat(bodyRuns.get()).isGreaterThan(3);
  }

  @Test
  void givesUpAfterMaxAttempts() {
    sessions.commitFailures.add(labelled(TransactionRunner.UNKNOWN_TRANSACTION_COMMIT_RESULT));
    sessions.commitFailures.add(labelled(TransactionRunner.UNKNOWN_TRANSACTION_COMMIT_RESULT));
    sessions.commitFailures.add(labelled(TransactionRunner.UNKNOWN_TRANSACTION_COMMIT_RESULT));
    TransactionRunner r = runner().maxAttempts(3).build();
    assertThatThrownBy(() -> r.run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOfSatisfying(TransactionRetriesExhaustedException.class,
            e -> assertThat(e.lastLabel()).isEqualTo("UnknownTransactionCommitResult"))
        .hasMessageContaining("attempts (3)");
    assertThat(bodyRuns).hasValue(1);
    assertThat(events).containsExactly(
        "UnknownTransactionCommitResult#1", "UnknownTransactionCommitResult#2");
  }

  @Test
  void refusesAtOnceWhenTheServerCannotDoTransactions() {
    sessions.unsupportedReason = "standalone";
    assertThatThrownBy(() -> runner().build().run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOf(TransactionsUnsupportedException.class)
        .hasMessageContaining("standalone")
        .hasMessageContaining("nothing was executed");
    assertThat(bodyRuns).hasValue(0);
    assertThat(sessions.opened).isZero();
  }

  @Test
  void driverRefusalToStartIsReportedAsUnsupportedAndTheBodyNeverRuns() {
    sessions.startFailure = new MongoClientException("Transactions are not supported");
    assertThatThrownBy(() -> runner().build().run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOf(TransactionsUnsupportedException.class)
        .hasCause(sessions.startFailure);
    assertThat(bodyRuns).hasValue(0);
  }

  @Test
  void driverRefusalToOpenASessionIsReportedAsUnsupported() {
    sessions.openFailure = new MongoClientException("sessions are not supported");
    assertThatThrownBy(() -> runner().build().run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOf(TransactionsUnsupportedException.class)
        .hasCause(sessions.openFailure);
    assertThat(bodyRuns).hasValue(0);
  }

  @Test
  void unreachableServerDuringTheSupportCheckIsATypedFailure() {
    MongoException timeout = new MongoException(-3, "Timed out while waiting for a server");
    sessions.supportCheckFailure = timeout;
    assertThatThrownBy(() -> runner().build().run(s -> bodyRuns.incrementAndGet()))
        .isInstanceOf(TransactionFailedException.class)
        .hasMessageContaining("could not reach the server")
        .hasCause(timeout);
    assertThat(bodyRuns).hasValue(0);
  }

  @Test
  void interruptDuringBackoffRestoresTheFlag() {
    TransactionRunner r = runner().sleeper(d -> {
      throw new InterruptedException();
    }).build();
    try {
      assertThatThrownBy(() -> r.run(s -> {
        throw labelled(TransactionRunner.TRANSIENT_TRANSACTION_ERROR);
      })).isInstanceOf(WriteGuardInterruptedException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void backoffGrowsWithJitterAndIsCapped() {
    TransactionRunner r = runner().initialBackoff(Duration.ofMillis(10))
        .maxBackoff(Duration.ofMillis(100)).build();
    for (int i = 0; i < 200; i++) {
      assertThat(r.backoff(1)).isBetween(Duration.ofMillis(5), Duration.ofMillis(10));
      assertThat(r.backoff(3)).isBetween(Duration.ofMillis(20), Duration.ofMillis(40));
      assertThat(r.backoff(40)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    }
  }

  @Test
  void builderNamesBadValues() {
    assertThatThrownBy(() -> runner().deadline(Duration.ZERO))
        .hasMessage("deadline must be positive, was PT0S");
    assertThatThrownBy(() -> runner().maxAttempts(0))
        .hasMessage("maxAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> runner().initialBackoff(Duration.ofMillis(-1)))
        .hasMessage("initialBackoff must be positive, was PT-0.001S");
    assertThatThrownBy(() -> runner().initialBackoff(Duration.ofMillis(50))
        .maxBackoff(Duration.ofMillis(10)).build())
        .hasMessage("maxBackoff must be >= initialBackoff (PT0.05S), was PT0.01S");
  }
}
