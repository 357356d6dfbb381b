package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a cancelled subscriber, a full queue and a lock held by a Mono do to a write: every
 * test cancels at the worst moment it can force (inside the mutator, while queued, while the
 * lock is being waited for) and then looks in the database and at the listener.
 */
class ReactiveCancelAndBackpressureTest {
  private final List<ReactiveWriteGuard> guards = new CopyOnWriteArrayList<>();

  private ReactiveWriteGuard guard(int threads, int queue) {
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(threads)
        .queueCapacity(queue).name("wg-test-" + guards.size()).build();
    guards.add(guard);
    return guard;
  }

  @AfterEach
  void close() {
    guards.forEach(ReactiveWriteGuard::close);
  }

  /** Records what a subscriber was told. */
  private static final class Told {
    final List<String> signals = new CopyOnWriteArrayList<>();

    Disposable subscribe(Mono<?> mono) {
      return mono.subscribe(v -> signals.add("next"), e -> signals.add("error " + e),
          () -> signals.add("complete"));
    }
  }

  @Test
  void aCancelInsideTheMutatorNeitherInterruptsNorLosesTheWrite() throws Exception {
    MongoCollection<Document> accounts = TestMongo.freshDatabase("reactorCancel")
        .getCollection("accounts");
    accounts.insertOne(new Document("_id", "a").append("balance", 0L).append("version", 0L));
    List<String> events = new CopyOnWriteArrayList<>();
    VersionedUpdater blocking = VersionedUpdater.builder(accounts)
        .listener(new WriteGuardListener() {
          @Override
          public void onSuccess(OperationScope scope, Object key, int attempts, Duration e) {
            events.add("success " + key);
          }
        }).build();
    ReactiveVersionedUpdater updater = guard(2, 4).versioned(blocking);
    CountDownLatch inMutator = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Told told = new Told();

    Disposable subscription = told.subscribe(updater.update("a", doc -> {
      inMutator.countDown();
      try {
        cancelled.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
      interrupted.compareAndSet(false, Thread.currentThread().isInterrupted());
      return Mutation.update(Updates.inc("balance", 5L));
    }));
    assertThat(inMutator.await(30, TimeUnit.SECONDS)).isTrue();
    subscription.dispose();
    cancelled.countDown();

    await().atMost(Duration.ofSeconds(30)).until(() -> events.contains("success a"));
    assertThat(interrupted).isFalse();
    assertThat(accounts.find(Filters.eq("_id", "a")).first().getLong("balance")).isEqualTo(5L);
    Thread.sleep(100); // a late delivery would show now
    assertThat(told.signals).isEmpty();
  }

  @Test
  void aCallCancelledWhileQueuedNeverStartsAndFreesItsPlace() throws Exception {
    ReactiveWriteGuard guard = guard(1, 1);
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch free = new CountDownLatch(1);
    AtomicInteger secondRan = new AtomicInteger();
    Told first = new Told();
    first.subscribe(guard.call(() -> {
      busy.countDown();
      awaitLatch(free);
      return "first";
    }));
    assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
    Told second = new Told();
    Disposable queued = second.subscribe(guard.call(secondRan::incrementAndGet));
    assertThat(guard.executor().admitted()).isEqualTo(2);
    queued.dispose();
    assertThat(guard.executor().admitted()).isEqualTo(1);
    // its place is free again: a third call is admitted, not refused
    Told third = new Told();
    third.subscribe(guard.call(() -> "third"));
    free.countDown();

    await().atMost(Duration.ofSeconds(30)).until(() -> third.signals.size() == 2);
    assertThat(third.signals).containsExactly("next", "complete");
    assertThat(first.signals).containsExactly("next", "complete");
    assertThat(secondRan).hasValue(0);
    assertThat(second.signals).isEmpty();
    assertThat(guard.executor().admitted()).isZero();
  }

  @Test
  void aFullQueueIsATypedErrorAtOnceAndNothingStarts() throws Exception {
    ReactiveWriteGuard guard = guard(1, 1);
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch free = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    new Told().subscribe(guard.call(() -> {
      busy.countDown();
      awaitLatch(free);
      return ran.incrementAndGet();
    }));
    assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
    new Told().subscribe(guard.call(ran::incrementAndGet)); // queued

    assertThatThrownBy(() -> guard.call(ran::incrementAndGet).block(Duration.ofSeconds(10)))
        .isInstanceOf(ReactiveQueueFullException.class)
        .hasMessageContaining("1 threads busy and 1 calls queued")
        .satisfies(e -> assertThat(((ReactiveQueueFullException) e).queueCapacity()).isOne());
    free.countDown();
    await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() == 2);
    Thread.sleep(100);
    assertThat(ran).hasValue(2); // the refused one never ran
  }

  @Test
  void concurrentMonosOfOneDocumentShareABatch() throws Exception {
    MongoCollection<Document> accounts = TestMongo.freshDatabase("reactorBatch")
        .getCollection("accounts");
    accounts.insertOne(new Document("_id", "b").append("n", 0L).append("version", 0L));
    AtomicInteger maxBatch = new AtomicInteger();
    ReactiveWriteGuard guard = guard(8, 8);
    ReactiveVersionedUpdater updater = guard.versioned(VersionedUpdater.builder(accounts)
        .listener(new WriteGuardListener() {
          @Override
          public void onBatch(OperationScope scope, Object key, int size) {
            maxBatch.accumulateAndGet(size, Math::max);
          }
        }).build());
    AtomicBoolean first = new AtomicBoolean(true);
    // The first mutator holds its batch until the 7 others are running (queued behind it).
    Long done = Flux.range(0, 8).flatMap(i -> updater.update("b", doc -> {
      if (first.getAndSet(false)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> guard.executor().admitted() == 8);
        sleep(300);
      }
      return Mutation.update(Updates.inc("n", 1L));
    })).count().block(Duration.ofSeconds(60));
    assertThat(done).isEqualTo(8);
    assertThat(accounts.find(Filters.eq("_id", "b")).first().getLong("n")).isEqualTo(8L);
    assertThat(maxBatch.get()).isGreaterThan(1);
  }

  @Test
  void theLockIsReleasedOnceAfterSuccessErrorAndWhenACancelledWorkEnds() throws Exception {
    ReactiveWriteGuard guard = guard(2, 8);
    CountingLocks locks = new CountingLocks();
    Duration wait = Duration.ofSeconds(10);

    assertThat(guard.withLock(locks, "k", wait, h -> Mono.just(h.token()))
        .block(Duration.ofSeconds(30))).isPositive();
    assertThat(locks.closes).hasValue(1);

    assertThatThrownBy(() -> guard.withLock(locks, "k", wait,
        h -> Mono.error(new IllegalStateException("boom"))).block(Duration.ofSeconds(30)))
        .hasMessage("boom");
    assertThat(locks.closes).hasValue(2);

    CountDownLatch running = new CountDownLatch(1);
    CompletableFuture<Long> gate = new CompletableFuture<>();
    AtomicBoolean told = new AtomicBoolean();
    Disposable cancelled = guard.withLock(locks, "k", wait,
        h -> Mono.fromFuture(gate).doOnSubscribe(s -> running.countDown()))
        .subscribe(v -> told.set(true), e -> told.set(true), () -> told.set(true));
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
    cancelled.dispose(); // detaches the subscriber; the work is not cut short
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
        .until(() -> locks.closes.get() == 2 && !gate.isCancelled());
    assertThat(locks.local.tryAcquire("k")).isEmpty(); // held while the work runs
    gate.complete(7L); // the work ends: only now is the lock released
    await().atMost(Duration.ofSeconds(30)).until(() -> locks.closes.get() == 3);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
    assertThat(locks.acquired).hasValue(3);
    assertThat(told).as("the cancelled subscriber was told nothing").isFalse();
  }

  @Test
  void aCancelWhileWaitingForTheLockReleasesItOnceHad() throws Exception {
    ReactiveWriteGuard guard = guard(2, 8);
    CountingLocks locks = new CountingLocks();
    LockHandle other = locks.local.acquire("k", Duration.ofSeconds(10));
    AtomicBoolean workRan = new AtomicBoolean();
    Disposable waiting = guard.withLock(locks, "k", Duration.ofSeconds(30),
        h -> Mono.fromRunnable(() -> workRan.set(true))).subscribe();
    await().atMost(Duration.ofSeconds(30)).until(() -> locks.local.waiting("k") == 1);
    waiting.dispose();
    other.close(); // the waiting acquire now gets the lock, after its subscriber left
    await().atMost(Duration.ofSeconds(30)).until(() -> locks.closes.get() == 1);
    assertThat(locks.acquired).hasValue(1);
    assertThat(workRan).isFalse();
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  @Test
  void concurrentHoldersOfOneKeyNeverOverlap() {
    ReactiveWriteGuard guard = guard(4, 64);
    LocalLockService locks = LocalLockService.create();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger entries = new AtomicInteger();
    Long done = Flux.range(0, 40).flatMap(i -> guard.withLock(locks, "one", Duration.ofSeconds(60),
        h -> Mono.fromRunnable(() -> {
          if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          entries.incrementAndGet();
        }).then(Mono.delay(Duration.ofMillis(2)))
            // the exit is the work's last step: recorded before its completion is signalled
            .then(Mono.fromRunnable(inside::decrementAndGet))
            .thenReturn(i))).count().block(Duration.ofSeconds(120));
    assertThat(done).isEqualTo(40);
    assertThat(entries).hasValue(40);
    assertThat(overlaps).hasValue(0);
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
