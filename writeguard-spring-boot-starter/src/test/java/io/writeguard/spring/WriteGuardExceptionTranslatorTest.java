package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.UpdateFailedException;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;

class WriteGuardExceptionTranslatorTest {
  private final WriteGuardExceptionTranslator translator = new WriteGuardExceptionTranslator();
  private static final Duration ELAPSED = Duration.ofMillis(42);

  @Test
  void exhaustedRetriesAreAnOptimisticLockingFailureWithTheOriginalAsCause() {
    var exhausted = new RetriesExhaustedException("accounts", "acct-1", 3, ELAPSED,
        RetriesExhaustedException.Budget.ATTEMPTS, OptionalLong.of(7), null);
    DataAccessException translated = translator.translateExceptionIfPossible(exhausted);
    assertThat(translated).isInstanceOf(OptimisticLockingFailureException.class)
        .hasCause(exhausted).hasMessage(exhausted.getMessage());
    assertThat(translated.getMessage()).contains("acct-1");
  }

  @Test
  void aBudgetWhoseLastFailureWasTransientIsATransientResourceFailureNotAConflict() {
    var timeout = new com.mongodb.MongoSocketReadTimeoutException("timed out",
        new com.mongodb.ServerAddress(), new java.net.SocketTimeoutException("read timed out"));
    for (var budget : RetriesExhaustedException.Budget.values()) {
      var exhausted = new RetriesExhaustedException("accounts", "acct-1", 4, ELAPSED, budget,
          OptionalLong.of(7), timeout);
      DataAccessException translated = translator.translateExceptionIfPossible(exhausted);
      assertThat(translated).isInstanceOf(TransientDataAccessResourceException.class)
          .isNotInstanceOf(ConcurrencyFailureException.class)
          .hasCause(exhausted).hasMessage(exhausted.getMessage());
      assertThat(translated.getMessage()).contains("transient error");
    }
  }

  @Test
  void aBudgetSpentBeforeTheFirstAttemptIsATransientResourceFailureNotAConflict() {
    // queued while the database stalled: the deadline passed before this caller's first attempt
    var queued = new RetriesExhaustedException("accounts", "acct-1", 0, Duration.ofSeconds(5),
        RetriesExhaustedException.Budget.DEADLINE, OptionalLong.empty(), null);
    assertThat(translator.translateExceptionIfPossible(queued))
        .isInstanceOf(TransientDataAccessResourceException.class)
        .isNotInstanceOf(OptimisticLockingFailureException.class).hasCause(queued);
  }

  @Test
  void aBudgetSpentOnConflictsStaysAConflictWhicheverBudgetRanOut() {
    for (var budget : RetriesExhaustedException.Budget.values()) {
      for (int attempts : new int[] {1, 10}) {
        var exhausted = new RetriesExhaustedException("accounts", "acct-1", attempts, ELAPSED,
            budget, OptionalLong.of(7), null);
        assertThat(translator.translateExceptionIfPossible(exhausted))
            .isInstanceOf(OptimisticLockingFailureException.class).hasCause(exhausted);
      }
    }
  }

  @Test
  void lockFailuresAreSpringsLockExceptions() {
    var timeout = new LockTimeoutException("mongo", "invoice:9", Duration.ofSeconds(1), 2);
    assertThat(translator.translateExceptionIfPossible(timeout))
        .isInstanceOf(CannotAcquireLockException.class).hasCause(timeout);
    var stale = new StaleLockException("invoices", "9", 41);
    assertThat(translator.translateExceptionIfPossible(stale))
        .isInstanceOf(ConcurrencyFailureException.class).hasCause(stale);
    var backend = new LockBackendException("redis down", new RuntimeException("refused"));
    assertThat(translator.translateExceptionIfPossible(backend))
        .isInstanceOf(DataAccessResourceFailureException.class).hasCause(backend);
  }

  @Test
  void anUnknownWriteOutcomeIsNotMadeRetryable() {
    var unknown = new WriteOutcomeUnknownException("accounts", "acct-1", 1, ELAPSED, 4L,
        new RuntimeException("socket closed"));
    DataAccessException translated = translator.translateExceptionIfPossible(unknown);
    assertThat(translated).isInstanceOf(DataAccessResourceFailureException.class)
        .isNotInstanceOf(TransientDataAccessException.class).hasCause(unknown);
    var failed = new UpdateFailedException("accounts", "acct-1", 1, ELAPSED, "not primary", null);
    assertThat(translator.translateExceptionIfPossible(failed))
        .isInstanceOf(DataAccessResourceFailureException.class);
  }

  @Test
  void aMissingDocumentIsAnEmptyResultExpectingOne() {
    var missing = new DocumentNotFoundException("accounts", "acct-1", 1, ELAPSED, false);
    assertThat(translator.translateExceptionIfPossible(missing))
        .isInstanceOfSatisfying(EmptyResultDataAccessException.class,
            e -> assertThat(e.getExpectedSize()).isEqualTo(1))
        .hasCause(missing);
  }

  @Test
  void interruptsAndForeignExceptionsAreLeftAlone() {
    var interrupted = new WriteGuardInterruptedException("waiting", new InterruptedException());
    assertThat(translator.translateExceptionIfPossible(interrupted)).isNull();
    assertThat(translator.translateExceptionIfPossible(new IllegalStateException("app"))).isNull();
    IllegalStateException own = new IllegalStateException("app");
    assertThat(translator.translate(own)).isSameAs(own);
  }
}
