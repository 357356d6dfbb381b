package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lone locked update's claim, read as the server's bytes, is bounded by the call's deadline
 * like every other round trip: on a server that stops answering once the lock is had, the call
 * ends with the driver's operation timeout (which only a deadline sets; the client's own
 * timeouts are 60 s) as the cause, having written nothing.
 */
class LoneLockedDeadlineTest {
  private StallingProxy proxy;
  private MongoClient client;
  private MongoDatabase db;

  @BeforeEach
  void connect() {
    proxy = StallingProxy.forTestMongo();
    client = proxy.mongoClient();
    db = client.getDatabase(TestMongo.freshDatabase("LoneLockedDeadline").getName());
    db.getCollection("docs").insertOne(new Document("_id", 1).append("n", 0)
        .append("version", 0L));
  }

  @AfterEach
  void close() {
    proxy.resume();
    client.close();
    proxy.close();
  }

  @Test
  void aLoneUpdateWhoseClaimStallsEndsByItsDeadlineWithNothingWritten() {
    try (MongoLeaseLockService leases = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build()) {
      AtomicInteger mutated = new AtomicInteger();
      LockedUpdater updater = LockedUpdater.builder(db.getCollection("docs"),
              new StallingOnceHeld(leases, proxy))
          .lockWait(Duration.ofMillis(500))
          .retryPolicy(RetryPolicy.builder().deadline(Duration.ofMillis(500)).build()).build();

      Throwable thrown = catchThrowable(() -> updater.update(1, d -> {
        mutated.incrementAndGet();
        return Mutation.update(Updates.inc("n", 1));
      }));

      assertThat(thrown).isInstanceOf(UpdateFailedException.class)
          .hasCauseInstanceOf(MongoOperationTimeoutException.class);
      assertThat(mutated).as("the claim never answered").hasValue(0);
      proxy.resume();
      assertThat(TestMongo.client().getDatabase(db.getName()).getCollection("docs").find()
          .first()).containsEntry("n", 0);
    }
  }

  /** The lease lock, with the server stopping as soon as a lock is had. */
  private record StallingOnceHeld(LockService locks, StallingProxy proxy) implements LockService {
    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      LockHandle held = locks.acquire(key, waitTimeout);
      proxy.stall();
      return held;
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      return locks.tryAcquire(key);
    }

    @Override
    public String backend() {
      return locks.backend();
    }

    @Override
    public void close() {
      locks.close();
    }
  }
}
