package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every correct contender, with real concurrent clients on one document, loses nothing: each of
 * the 4 x 50 operations is acknowledged or gave up within its budget, and every acknowledged
 * one is in the final document. Bounded by operation count, not time.
 */
class ContendersTest {
  private static final int CLIENTS = 4;
  private static final int OPS_PER_CLIENT = 50;
  private static Backends backends;

  @BeforeAll
  static void connect() {
    backends = TestServers.backends();
  }

  @AfterAll
  static void close() {
    backends.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {WriteGuardOptimistic.NAME, SpringVersioned.NAME, WriteGuardLocked.REDIS,
      RedissonLocked.NAME, WriteGuardLocked.MONGO, ShedLockRetried.NAME, FlatCombiningReference.NAME,
      AtomicInc.NAME, AtomicPush.NAME, LockByHand.MONGO, LockByHand.REDIS,
      LockByHand.MONGO_BOUNDED, LockByHand.REDIS_BOUNDED})
  void correctContenderLosesNothingUnderConcurrentClients(String name) {
    ObjectId docId = new ObjectId();
    backends.hot().insertOne(HotDocument.fresh(docId));
    try (Contender contender = Contenders.create(name, backends)) {
      RoundPart part = ClientRound.run(contender, docId, CLIENTS, Duration.ofMinutes(5),
          OPS_PER_CLIENT, 0, 1);
      LossCheck check = LossCheck.of(backends.hot(), docId, part.acked);

      assertThat(part.errors).as("errors (first: %s)", part.errorSample).isZero();
      assertThat(part.ackedCount() + part.exhausted).isEqualTo(CLIENTS * OPS_PER_CLIENT);
      assertThat(part.ackedCount()).isPositive();
      assertThat(check.lost()).isZero();
      assertThat(check.writtenNotAcked()).isZero();
      assertThat(part.latencyUs.getTotalCount()).isEqualTo(part.ackedCount());
    }
  }
}
