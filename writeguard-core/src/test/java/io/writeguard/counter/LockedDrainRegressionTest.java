package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockService;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.ReleaseFailingLocks;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Faults around the drain of {@link LockedDrainCombiner} that its lost-reply test does not
 * force: the lock failing to release after a drain that succeeded, and an interrupt of the
 * decrementing thread part-way through a drain.
 */
class LockedDrainRegressionTest {
  private static final AtomicInteger ids = new AtomicInteger();
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("LockedDrain").getCollection("counters");

  /**
   * Bug: the drain ran in a try-with-resources on the lock, so when the release failed
   * (a lease lock's release is a MongoDB write, and it can fail) after a drain that took 5,
   * the caller got a {@link LockBackendException} for a decrement that was applied; a caller
   * retrying it took 5 twice.
   */
  @Test
  void aLockReleaseFailureAfterASuccessfulDrainDoesNotReportTheDecrementAsFailed() {
    String id = seed(3, 3);
    ReleaseFailingLocks locks = new ReleaseFailingLocks();
    ShardedCounter counter = counter(collection, locks);

    DecrementResult result = counter.decrement(id, 5);

    assertThat(result.combined()).isTrue();
    assertThat(locks.releases()).isEqualTo(1);
    assertThat(counter.total(id)).isEqualTo(1);
  }

  /** A refused drain whose release fails still says "insufficient": nothing was written. */
  @Test
  void aLockReleaseFailureAfterARefusedDrainStillReportsTheRefusal() {
    String id = seed(3, 3);
    ShardedCounter counter = counter(collection, new ReleaseFailingLocks());

    try {
      counter.decrement(id, 10);
      throw new AssertionError("a decrement of 10 from [3,3] succeeded");
    } catch (InsufficientBalanceException e) {
      assertThat(e.getSuppressed()).hasOnlyElementsOfType(LockBackendException.class);
    }
    assertThat(counter.total(id)).isEqualTo(6);
  }

  /**
   * Bug: the driver refuses every call of an interrupted thread, so an interrupt that arrived
   * while a drain was taking (a write applied, its reply cut by the interrupt) made every
   * give-back fail as well, and the whole drained amount was reported stranded, taken out of
   * the counter for good. The give-back must finish regardless, and the interrupt be restored.
   * Every write of a combined decrement of 5 and a refused decrement of 10 from [3, 3] is
   * interrupted in turn (a two-shard counter: write 1 is the single-shard try).
   */
  @TestFactory
  List<DynamicTest> anInterruptAtAnyDrainWriteStrandsNothing() {
    List<DynamicTest> tests = new ArrayList<>();
    for (long amount : new long[] {5, 10}) {
      for (int at = 1; at <= 5; at++) {
        int failAt = at;
        tests.add(DynamicTest.dynamicTest("decrement of " + amount + " from [3,3], write "
            + failAt + " interrupted", () -> interruptedAt(amount, failAt)));
      }
    }
    return tests;
  }

  private void interruptedAt(long amount, int failAt) {
    String id = seed(3, 3);
    ApplyThenFail fault = ApplyThenFail.interruptedAtWrite(failAt);
    ShardedCounter faulty = counter(fault.wrap(collection), LocalLockService.create());
    ShardedCounter plain = counter(collection, LocalLockService.create());
    long before = 6;
    long after = amount <= before ? before - amount : before;
    Object outcome;
    boolean interrupted;
    try {
      outcome = faulty.decrement(id, amount);
    } catch (RuntimeException e) {
      outcome = e;
    } finally {
      interrupted = Thread.interrupted();
    }
    Object told = outcome;
    String where = "writes " + fault.log() + ", outcome " + told;
    assertThat(told).as(where).isNotInstanceOf(StrandedBalanceException.class);
    if (fault.fired()) {
      assertThat(interrupted).as("interrupt restored, " + where).isTrue();
    }
    long total = plain.total(id);
    if (told instanceof WriteOutcomeUnknownException) {
      assertThat(total).as(where).isIn(before, after);
    } else if (told instanceof DecrementResult || told instanceof DecrementFailedException
        || told instanceof InsufficientBalanceException) {
      assertThat(total).as(where)
          .isEqualTo(told instanceof DecrementResult ? after : before);
    } else {
      throw new AssertionError("unexpected outcome, " + where, (Throwable) told);
    }
    assertThat(plain.shardValues(id)).as(where).allMatch(v -> v >= 0);
  }

  private ShardedCounter counter(MongoCollection<Document> c, LockService locks) {
    return ShardedCounter.builder(c).layout(CounterLayout.DOCUMENTS).shards(2)
        .lockService(locks).lockWaitTimeout(Duration.ofSeconds(30)).build();
  }

  private String seed(long... values) {
    String id = "d" + ids.incrementAndGet();
    for (int i = 0; i < values.length; i++) {
      collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
          .append("shard", i).append("balance", values[i]));
    }
    return id;
  }
}
