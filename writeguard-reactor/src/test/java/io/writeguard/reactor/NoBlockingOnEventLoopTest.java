package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.TypedAccounts;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * BlockHound fails any blocking call (socket I/O, a park, a sleep) made on a Reactor
 * non-blocking thread. Here every Mono is subscribed from {@code parallel()} threads and its
 * result delivered there, against the embedded MongoDB, so a facade that ran the driver, a lock
 * wait, a retry's backoff or its own queue's lock on the subscribing thread would fail.
 */
class NoBlockingOnEventLoopTest {
  private static final int CALLS = 256;
  private static ReactiveWriteGuard guard;

  @BeforeAll
  static void install() {
    TestMongo.client(); // start the embedded server before BlockHound watches
    BlockHound.install();
    guard = ReactiveWriteGuard.builder().threads(8).queueCapacity(CALLS).build();
  }

  @AfterAll
  static void close() {
    guard.close();
  }

  @Test
  void blockHoundIsWatching() {
    // The check can fail: a sleep on a parallel() thread is reported.
    Mono<String> sleeps = Mono.fromCallable(() -> {
      Thread.sleep(1);
      return "slept";
    }).subscribeOn(Schedulers.parallel());
    assertThatThrownBy(() -> sleeps.block(Duration.ofSeconds(30)))
        .hasCauseInstanceOf(BlockingOperationError.class);
  }

  @Test
  void concurrentMonosOnOneHotDocumentFromParallelThreadsLoseNothing() {
    MongoCollection<Document> accounts = TestMongo.freshDatabase("reactorHot")
        .getCollection("accounts");
    accounts.insertOne(new Document("_id", "hot").append("balance", 0L).append("version", 0L));
    AtomicInteger maxBatch = new AtomicInteger();
    AtomicInteger successes = new AtomicInteger();
    WriteGuardListener listener = new WriteGuardListener() {
      @Override
      public void onBatch(OperationScope scope, Object key, int size) {
        maxBatch.accumulateAndGet(size, Math::max);
      }

      @Override
      public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
        successes.incrementAndGet();
      }
    };
    VersionedUpdater blocking = VersionedUpdater.builder(accounts)
        .retryPolicy(RetryPolicy.builder().maxAttempts(50).deadline(Duration.ofSeconds(60))
            .build())
        .listener(listener)
        .build();
    ReactiveVersionedUpdater updater = guard.versioned(blocking);
    Set<String> mutatorThreads = ConcurrentHashMap.newKeySet();
    Set<String> deliveryThreads = ConcurrentHashMap.newKeySet();

    Long acknowledged = Flux.range(0, CALLS)
        .parallel(4)
        .runOn(Schedulers.parallel())
        .flatMap(i -> updater.update("hot", current -> {
          mutatorThreads.add(Thread.currentThread().getName());
          return Mutation.update(Updates.inc("balance", 1L));
        }).doOnNext(outcome -> deliveryThreads.add(Thread.currentThread().getName())))
        .sequential()
        .count()
        .block(Duration.ofSeconds(120));

    Document stored = accounts.find(Filters.eq("_id", "hot")).first();
    assertThat(acknowledged).isEqualTo(CALLS);
    assertThat(stored.getLong("balance")).isEqualTo(CALLS);
    assertThat(successes.get()).isEqualTo(CALLS);
    assertThat(mutatorThreads).allMatch(name -> name.startsWith(ReactiveWriteGuard.DEFAULT_NAME));
    assertThat(deliveryThreads).allMatch(name -> name.startsWith("parallel-"));
    assertThat(guard.executor().admitted()).isZero();
  }

  @Test
  void typedRecordsFromParallelThreadsLoseNothing() {
    var accounts = TypedAccounts.accounts(TestMongo.freshDatabase("reactorTyped"));
    ReactiveTypedUpdater<TypedAccounts.Account> updater =
        guard.typed(VersionedUpdater.typed(accounts));
    TypedAccounts.Account inserted = updater
        .insert(new TypedAccounts.Account("t1", 0, List.of(), null))
        .subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
    assertThat(inserted.version()).isZero();

    Long done = Flux.range(0, 64).parallel(4).runOn(Schedulers.parallel())
        .flatMap(i -> updater.update("t1", TypedMutator.replacing(a -> a.deposit(1, "e" + i))))
        .sequential().count().block(Duration.ofSeconds(120));

    TypedAccounts.Account stored = accounts.find(Filters.eq("_id", "t1")).first();
    assertThat(done).isEqualTo(64);
    assertThat(stored.balance()).isEqualTo(64);
    assertThat(new HashSet<>(stored.log())).hasSize(64);
    assertThat(stored.version()).isEqualTo(64);
  }

  @Test
  void aLockedUpdaterWaitsForItsLockOnTheExecutorNotOnTheSubscriber() throws Exception {
    MongoCollection<Document> invoices = TestMongo.freshDatabase("reactorLocked")
        .getCollection("invoices");
    invoices.insertOne(new Document("_id", "i1").append("items", 0L).append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    ReactiveLockedUpdater updater = guard.locked(LockedUpdater.builder(invoices, locks)
        .lockWait(Duration.ofSeconds(60)).build());
    // Hold the document's lock elsewhere, so the calls wait for it (a park).
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      try (var handle = locks.acquire("invoices:i1", Duration.ofSeconds(10))) {
        holding.countDown();
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    holder.start();
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

    Mono<Long> done = Flux.range(0, 32)
        .parallel(4)
        .runOn(Schedulers.parallel())
        .flatMap(i -> updater.update("i1", doc -> Mutation.update(Updates.inc("items", 1L))))
        .sequential()
        .count();
    var pending = done.toFuture();
    Thread.sleep(200); // the calls are queued behind the held lock
    release.countDown();
    assertThat(pending.get(120, TimeUnit.SECONDS)).isEqualTo(32L);
    holder.join(30_000);
    assertThat(invoices.find(Filters.eq("_id", "i1")).first().getLong("items")).isEqualTo(32L);
  }
}
