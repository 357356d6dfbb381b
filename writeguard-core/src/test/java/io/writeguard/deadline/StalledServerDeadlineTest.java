package io.writeguard.deadline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.counter.CounterLayout;
import io.writeguard.counter.ShardedCounter;
import io.writeguard.idempotency.IdempotencyStore;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import io.writeguard.tx.TransactionRunner;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.UpdateFailedException;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every component, on a server that stops answering (a proxy that stops forwarding, its
 * connections left open; the client's own timeouts are 60 s): the call ends at the caller's
 * deadline, within a generous margin for a loaded machine, with the typed error it gets today.
 */
class StalledServerDeadlineTest {
  private static final Duration DEADLINE = Duration.ofSeconds(1);
  // deadline + the write grace + a loaded machine's scheduling; far below the client's 60 s
  private static final Duration BOUND = DEADLINE.plus(Deadlines.OUTCOME_GRACE).plusMillis(1500);

  private StallingProxy proxy;
  private MongoClient client;
  private MongoDatabase db;

  @BeforeEach
  void connect() {
    proxy = StallingProxy.forTestMongo();
    client = proxy.mongoClient();
    db = client.getDatabase(TestMongo.freshDatabase("Stalled").getName());
    db.getCollection("docs").insertOne(new Document("_id", 1).append("n", 0).append("version", 0L));
  }

  @AfterEach
  void close() {
    proxy.close();
    client.close();
  }

  private static RetryPolicy oneSecond() {
    return RetryPolicy.builder().deadline(DEADLINE).build();
  }

  private static Throwable endsByTheBound(Executable call) {
    long start = System.nanoTime();
    Throwable thrown = null;
    try {
      call.execute();
    } catch (Throwable t) {
      thrown = t;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("the call took %s", took).isLessThan(BOUND);
    assertThat(thrown).as("a stalled server cannot answer").isNotNull();
    return thrown;
  }

  @Test
  void aVersionedUpdateWhoseReadStallsEndsAtItsDeadlineWithNothingWritten() {
    VersionedUpdater updater = VersionedUpdater.builder(db.getCollection("docs"))
        .retryPolicy(oneSecond()).build();
    proxy.stall();
    Throwable t = endsByTheBound(() -> updater.update(1, d -> Mutation.update(Updates.inc("n", 1))));
    assertThat(t).isInstanceOf(RetriesExhaustedException.class);
    assertThat(((RetriesExhaustedException) t).budget())
        .isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
  }

  @Test
  void aVersionedUpdateWhoseWriteStallsEndsAtItsDeadlineWithItsOutcomeUnknown() {
    VersionedUpdater updater = VersionedUpdater.builder(db.getCollection("docs"))
        .retryPolicy(oneSecond()).build();
    // The read is answered; the server stops before the write.
    Throwable t = endsByTheBound(() -> updater.update(1, d -> {
      proxy.stall();
      return Mutation.update(Updates.inc("n", 1));
    }));
    assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class)
        .hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
    assertThat(t.getCause()).isInstanceOf(MongoOperationTimeoutException.class);
  }

  @Test
  void aCallersDeadlineShortensTheRetryPolicysOne() {
    VersionedUpdater updater = VersionedUpdater.builder(db.getCollection("docs")).build(); // 5 s
    proxy.stall();
    Throwable t = endsByTheBound(() -> Deadlines.within(DEADLINE,
        () -> updater.update(1, d -> Mutation.update(Updates.inc("n", 1)))));
    assertThat(t).isInstanceOf(RetriesExhaustedException.class);
  }

  @Test
  void aLockWaitOnAStalledStoreEndsAtTheWaitAsALockTimeout() {
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      proxy.stall();
      Throwable t = endsByTheBound(() -> locks.acquire("k", DEADLINE));
      assertThat(t).isInstanceOf(LockTimeoutException.class);
    }
  }

  @Test
  void aLockedUpdateSharesOneBudgetBetweenItsLockWaitAndItsFencedWrite() {
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      LockedUpdater updater = LockedUpdater.builder(db.getCollection("docs"), locks)
          .lockWait(Duration.ofMillis(500)).retryPolicy(RetryPolicy.builder()
              .deadline(Duration.ofMillis(500)).build()).build();
      // The lock is had and the document read; the server stops before the fenced write.
      Throwable t = endsByTheBound(() -> updater.update(1, d -> {
        proxy.stall();
        return Mutation.update(Updates.inc("n", 1));
      }));
      assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class);
    }
  }

  /**
   * A lone locked update's claim, read as the server's bytes, is bounded like every other round
   * trip: the server stops once the lock is had, and the call ends with the driver's operation
   * timeout (which only a deadline sets) as its cause, nothing written.
   */
  @Test
  void aLockedUpdateWhoseClaimStallsEndsAtItsDeadlineWithNothingWritten() {
    try (MongoLeaseLockService leases = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      LockService stallingOnceHeld = new LockService() {
        @Override
        public LockHandle acquire(String key, Duration waitTimeout) {
          LockHandle held = leases.acquire(key, waitTimeout);
          proxy.stall();
          return held;
        }

        @Override
        public Optional<LockHandle> tryAcquire(String key) {
          return leases.tryAcquire(key);
        }

        @Override
        public String backend() {
          return leases.backend();
        }
      };
      LockedUpdater updater = LockedUpdater.builder(db.getCollection("docs"), stallingOnceHeld)
          .lockWait(Duration.ofMillis(500)).retryPolicy(RetryPolicy.builder()
              .deadline(Duration.ofMillis(500)).build()).build();
      AtomicInteger mutated = new AtomicInteger();
      Throwable t = catchThrowable(() -> updater.update(1, d -> {
        mutated.incrementAndGet();
        return Mutation.update(Updates.inc("n", 1));
      }));
      assertThat(t).isInstanceOf(UpdateFailedException.class)
          .hasCauseInstanceOf(MongoOperationTimeoutException.class);
      assertThat(mutated).as("the claim never answered").hasValue(0);
      proxy.resume();
      assertThat(db.getCollection("docs").find().first()).containsEntry("n", 0);
    }
  }

  @Test
  void aGroupCommitRoundOnAStalledServerEndsByItsCallersDeadline() throws Exception {
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      LockedUpdater updater = LockedUpdater.builder(db.getCollection("docs"), locks)
          .groupCommit(true).lockWait(Duration.ofMillis(500))
          .retryPolicy(RetryPolicy.builder().deadline(Duration.ofMillis(500)).build()).build();
      AtomicInteger inMutator = new AtomicInteger();
      int callers = 3;
      Thread[] threads = new Thread[callers];
      Throwable[] thrown = new Throwable[callers];
      for (int i = 0; i < callers; i++) {
        int me = i;
        threads[i] = new Thread(() -> thrown[me] = endsByTheBound(() -> updater.update(1, d -> {
          inMutator.incrementAndGet();
          proxy.stall();
          return Mutation.update(Updates.inc("n", 1));
        })));
        threads[i].start();
      }
      for (Thread thread : threads) {
        thread.join(BOUND.multipliedBy(3).toMillis());
        assertThat(thread.isAlive()).isFalse();
      }
      assertThat(inMutator.get()).isPositive();
      for (Throwable t : thrown) {
        assertThat(t).isNotNull(); // each one's bound was asserted in its own thread
      }
    }
  }

  @Test
  void aFencedWriteUnderACallersDeadlineEndsAtIt() {
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      FencedWriter writer = FencedWriter.of(db.getCollection("docs"));
      Throwable t = endsByTheBound(() -> Deadlines.within(DEADLINE, () -> {
        try (LockHandle lock = locks.acquire("docs:1", DEADLINE)) {
          writer.claim(lock, 1);
          proxy.stall();
          writer.updateOne(lock, 1, Updates.inc("n", 1));
        }
      }));
      assertThat(t).hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
    }
  }

  @Test
  void aCounterCallEndsAtItsDeadline() {
    MongoCollection<Document> shards = db.getCollection("counter");
    ShardedCounter counter = ShardedCounter.builder(shards).layout(CounterLayout.FIELDS)
        .deadline(DEADLINE).build();
    counter.increment("c", 5);
    proxy.stall();
    Throwable t = endsByTheBound(() -> counter.increment("c", 1));
    assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class);
    endsByTheBound(() -> counter.total("c"));
  }

  @Test
  void anIdempotentCallEndsAtTheCallersDeadlineWithoutRunningTheAction() {
    IdempotencyStore store = IdempotencyStore.builder(db.getCollection("once")).build();
    AtomicInteger ran = new AtomicInteger();
    proxy.stall();
    endsByTheBound(() -> Deadlines.within(DEADLINE, () -> store.once("key", ran::incrementAndGet)));
    assertThat(ran.get()).isZero();
  }

  @Test
  void aTransactionRunnerOnAStalledServerEndsAtItsDeadline() {
    // A fresh client of a server that never answered: the runner's first call asks the server
    // what it is, which would wait for server selection (30 s) without the deadline.
    proxy.stall();
    try (MongoClient fresh = proxy.mongoClient()) {
      TransactionRunner runner = TransactionRunner.builder(fresh).deadline(DEADLINE).build();
      endsByTheBound(() -> runner.run(session -> 1));
    }
  }
}
