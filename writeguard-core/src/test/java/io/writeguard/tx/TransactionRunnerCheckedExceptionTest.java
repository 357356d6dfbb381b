package io.writeguard.tx;

import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneakyThrow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: a transaction body that throws a checked exception the compiler does not see
 * (Kotlin, {@code @SneakyThrows}) fails the caller with that very exception, and its
 * transaction is aborted at once, as for any other failure of the body, not left open on the
 * server until its lifetime ends.
 */
class TransactionRunnerCheckedExceptionTest {
  private final ScriptedSessions sessions = new ScriptedSessions();

  @Test
  void aBodyThrowingACheckedExceptionAbortsAndRethrowsItUnchanged() {
    IOException thrown = checked("the transaction body");
    Throwable failure = catchThrowable(() -> TransactionRunner.builder(sessions).build()
        .run(s -> sneakyThrow(thrown)));

    assertThat(failure).isSameAs(thrown);
    assertThat(sessions.log).containsExactly("start", "abort", "close");
  }
}
