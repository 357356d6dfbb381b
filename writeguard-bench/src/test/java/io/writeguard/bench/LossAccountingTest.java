package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The accounting does count losses: two clients forced to both read before either writes (a
 * barrier between read and write) each get an acknowledgement, and exactly one of the two
 * changes is in the document. The seed's locker, forced the same way, lets both in, because
 * each request locks a new ObjectId object; a lock that worked would keep the second client
 * out, the barrier would time out, and the test would fail.
 */
class LossAccountingTest {
  private static Backends backends;

  @BeforeAll
  static void connect() {
    backends = TestServers.backends();
  }

  @AfterAll
  static void close() {
    backends.close();
  }

  @Test
  void naiveFindReplaceWithBothReadsBeforeEitherWriteLosesExactlyOne() {
    try (Contender naive = new NaiveFindReplace(backends, bothReadFirst())) {
      assertExactlyOneOfTwoLost(naive);
    }
  }

  @Test
  void seedDocumentLockerLetsTheSecondRequestInAndLosesExactlyOne() {
    try (Contender seed = new SeedLocked(backends, new DocumentLocker(), bothReadFirst())) {
      assertExactlyOneOfTwoLost(seed);
    }
  }

  private static void assertExactlyOneOfTwoLost(Contender contender) {
    ObjectId docId = new ObjectId();
    backends.hot().insertOne(HotDocument.fresh(docId));
    RoundPart part = ClientRound.run(contender, docId, 2, Duration.ofMinutes(5), 1, 0, 1);
    LossCheck check = LossCheck.of(backends.hot(), docId, part.acked);

    assertThat(part.errors).as("errors (first: %s)", part.errorSample).isZero();
    assertThat(part.ackedCount()).isEqualTo(2);
    assertThat(check.lost()).isEqualTo(1);
  }

  /** Holds each client between its read and its write until the other has read too. */
  private static Runnable bothReadFirst() {
    CyclicBarrier barrier = new CyclicBarrier(2);
    return () -> {
      try {
        barrier.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (BrokenBarrierException | TimeoutException e) {
        throw new IllegalStateException("the other client never read: it was kept out", e);
      }
    };
  }
}
