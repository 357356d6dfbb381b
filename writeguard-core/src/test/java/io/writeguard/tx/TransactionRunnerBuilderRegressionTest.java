package io.writeguard.tx;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@code build()} stored the deadline-derived {@code maxCommitTime} back into the
 * builder, so a second {@code build()} after {@code deadline(...)} kept the first deadline's
 * commit time limit.
 */
class TransactionRunnerBuilderRegressionTest {

  /** Sessions that record the options each transaction was started with. */
  private static final class RecordingSessions implements SessionSource {
    final List<TransactionOptions> started = new ArrayList<>();

    @Override
    public Optional<String> whyTransactionsUnsupported() {
      return Optional.empty();
    }

    @Override
    public TxSession open() {
      return new TxSession() {
        @Override
        public void startTransaction(TransactionOptions options) {
          started.add(options);
        }

        @Override
        public ClientSession clientSession() {
          return null;
        }

        @Override
        public boolean hasActiveTransaction() {
          return false;
        }

        @Override
        public void commitTransaction() {}

        @Override
        public void abortTransaction() {}

        @Override
        public void close() {}
      };
    }
  }

  @Test
  void reusingTheBuilderWithAnotherDeadlineChangesTheCommitTimeLimit() {
    RecordingSessions sessions = new RecordingSessions();
    TransactionRunner.Builder builder = TransactionRunner.builder(sessions);
    TransactionRunner first = builder.deadline(Duration.ofSeconds(1)).build();
    TransactionRunner second = builder.deadline(Duration.ofSeconds(30)).build();
    first.run(session -> null);
    second.run(session -> null);
    assertThat(sessions.started.get(0).getMaxCommitTime(TimeUnit.MILLISECONDS)).isEqualTo(1_000L);
    assertThat(sessions.started.get(1).getMaxCommitTime(TimeUnit.MILLISECONDS)).isEqualTo(30_000L);
  }
}
