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
