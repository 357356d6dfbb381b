package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoTimeoutException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
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
