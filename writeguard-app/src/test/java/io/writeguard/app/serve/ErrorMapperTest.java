package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoTimeoutException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.ServerAddress;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.UpdateFailedException;
import java.net.SocketTimeoutException;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The mappings the HTTP tests cannot cause on demand; never a class name or a cause's text. */
class ErrorMapperTest {
  private final ErrorMapper mapper = new ErrorMapper(3);

  @Test
  void serverSideFailuresAre503WithRetryAfter() {
    assertRetry(mapper.map(new LockBackendException("redis at redis://:hunter2@h:6379 down", null)));
    assertRetry(mapper.map(new MongoTimeoutException("no server")));
    assertRetry(mapper.map(new WriteOutcomeUnknownException("docs", "k", 1, Duration.ZERO,
        4L, new RuntimeException("socket"))));
    assertRetry(mapper.map(new WriteGuardInterruptedException("waiting", new InterruptedException())));
    Thread.interrupted(); // the exception restored the flag on this thread; clear it
  }

  @Test
  void anExhaustedOrFailedUpdateCausedByAnOutageIs503NotContention() {
    // The bug: optimistic on a stalled MongoDB retried transient read errors until its budget
    // ran out and answered 409 "the document is busy", blaming contention for an outage.
    MongoSocketReadTimeoutException stalled = new MongoSocketReadTimeoutException(
        "Timeout while receiving message", new ServerAddress(), new SocketTimeoutException());
    assertRetry(mapper.map(new RetriesExhaustedException("docs", "k", 7, Duration.ofSeconds(12),
        RetriesExhaustedException.Budget.DEADLINE, OptionalLong.of(3), stalled)));
    assertRetry(mapper.map(new UpdateFailedException("docs", "k", 1, Duration.ofSeconds(1),
        "failed", new MongoTimeoutException("no server"))));
    // Contention without an outage stays 409.
    ErrorResponse busy = mapper.map(new RetriesExhaustedException("docs", "k", 30,
        Duration.ofSeconds(1), RetriesExhaustedException.Budget.ATTEMPTS, OptionalLong.of(3),
        null));
    assertThat(busy.status()).isEqualTo(409);
  }

  @Test
  void anOutageIsLoggedAsOneLine() {
    String line = ErrorMapper.oneLine(new RetriesExhaustedException("docs", "k", 2,
        Duration.ZERO, RetriesExhaustedException.Budget.ATTEMPTS, OptionalLong.empty(),
        new MongoTimeoutException("no\nserver")));
    assertThat(line).contains("MongoTimeoutException").doesNotContain("\n", "\tat ");
  }

  @Test
  void anythingElseIs500WithAFixedMessage() {
    ErrorResponse r = mapper.map(new IllegalStateException("secret internals"));
    assertThat(r.status()).isEqualTo(500);
    assertThat(r.error()).isEqualTo("internal error");
    assertThat(r.retryAfterSeconds()).isNull();
  }

  private static void assertRetry(ErrorResponse r) {
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.retryAfterSeconds()).isEqualTo(3);
    assertThat(r.error()).doesNotContain("hunter2", "Exception", "socket");
  }
}
