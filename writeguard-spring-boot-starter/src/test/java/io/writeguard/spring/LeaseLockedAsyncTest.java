package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.PessimisticLockingFailureException;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @LeaseLocked} on methods returning a {@code Mono} or a {@code CompletableFuture}: the
 * lock is held until the returned work ends. Each test tries to see two holders at once, a
 * lock left taken after an error or a cancel, or a lease lost mid-work reported otherwise than
 * for a blocking method.
 */
class LeaseLockedAsyncTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class,
          WriteGuardReactiveAutoConfiguration.class))
      .withPropertyValues("writeguard.lock.default-service=locks")
      .withBean("locks", LockService.class, LocalLockService::create)
      .withBean(Accounts.class);

  /** Who was inside the locked work, and when. */
  static final class Tally {
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger entries = new AtomicInteger();
    final Set<Long> tokens = ConcurrentHashMap.newKeySet();
    final CountDownLatch neverEntered = new CountDownLatch(1);
    final CompletableFuture<String> gate = new CompletableFuture<>();
  }

  /** Records who is inside the locked work (read through {@link #tally()}: it is proxied). */
  public static class Accounts {
    private final Tally tally = new Tally();
    private final AtomicInteger inside = tally.inside;
    private final AtomicInteger overlaps = tally.overlaps;
    private final AtomicInteger entries = tally.entries;
    private final Set<Long> tokens = tally.tokens;
    private final CountDownLatch neverEntered = tally.neverEntered;
    private final CompletableFuture<String> gate = tally.gate;

    public Tally tally() {
      return tally;
    }

    private void enter(LockHandle lock) {
      if (inside.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
      entries.incrementAndGet();
      tokens.add(lock.token());
    }

    @LeaseLocked(key = "'acct:' + #id", waitTimeout = "60s")
    public Mono<Integer> mono(String id, LockHandle lock) {
      return Mono.fromRunnable(() -> enter(lock))
          .then(Mono.delay(Duration.ofMillis(3)))  // asynchronous: the method has returned
          .then(Mono.fromCallable(inside::decrementAndGet));
    }

    @LeaseLocked(key = "'acct:' + #id", waitTimeout = "60s")
    public CompletableFuture<Integer> future(String id, LockHandle lock) {
      return CompletableFuture.supplyAsync(() -> {
        enter(lock);
        sleep(3);
        return inside.decrementAndGet();
      });
    }

    @LeaseLocked(key = "'acct:' + #id")
    public Mono<String> failing(String id) {
      return Mono.delay(Duration.ofMillis(5)).then(Mono.error(new IllegalStateException("no")));
    }

    @LeaseLocked(key = "'acct:' + #id")
    public Mono<String> throwing(String id) {
      throw new IllegalArgumentException("thrown before any Mono");
    }

    @LeaseLocked(key = "'acct:' + #id")
    public Mono<String> gated(String id) {
      return Mono.fromFuture(gate).doOnSubscribe(s -> neverEntered.countDown());
    }
  }

  @Test
  void concurrentCallersOfALockedMonoOrFutureNeverOverlap() {
    runner.run(context -> {
      Accounts accounts = context.getBean(Accounts.class);
      Tally tally = accounts.tally();
      // two callers, each with 20 calls in flight at once, from parallel() threads
      Long monos = Flux.range(0, 2).parallel(2).runOn(Schedulers.parallel())
          .flatMap(caller -> Flux.range(0, 20).flatMap(i -> accounts.mono("a1", null)))
          .sequential().count().block(Duration.ofSeconds(120));
      assertThat(monos).isEqualTo(40);
      assertThat(tally.entries).hasValue(40);
      assertThat(tally.tokens).hasSize(40);
      assertThat(tally.overlaps).hasValue(0);

      List<CompletableFuture<Integer>> futures = new CopyOnWriteArrayList<>();
      Flux.range(0, 2).parallel(2).runOn(Schedulers.parallel())
          .doOnNext(caller -> {
            for (int i = 0; i < 20; i++) {
              futures.add(accounts.future("a1", null));
            }
          }).sequential().blockLast(Duration.ofSeconds(60));
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
      assertThat(tally.entries).hasValue(80);
      assertThat(tally.tokens).hasSize(80);
      assertThat(tally.overlaps).hasValue(0);
    });
  }

  @Test
  void theLockIsReleasedAfterAnErrorAThrowAndWhenACancelledWorkEnds() {
    runner.run(context -> {
      Accounts accounts = context.getBean(Accounts.class);
      LocalLockService locks = (LocalLockService) context.getBean("locks");

      assertThatThrownBy(() -> accounts.failing("e1").block(Duration.ofSeconds(30)))
          .hasMessage("no");
      assertThat(locks.tryAcquire("acct:e1")).hasValueSatisfying(LockHandle::close);

      assertThatThrownBy(() -> accounts.throwing("e2").block(Duration.ofSeconds(30)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(locks.tryAcquire("acct:e2")).hasValueSatisfying(LockHandle::close);

      Disposable running = accounts.gated("e3").subscribe();
      assertThat(accounts.tally().neverEntered.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(locks.tryAcquire("acct:e3")).isEmpty(); // held while the work runs
      running.dispose(); // detaches the caller; the work runs on and keeps the lock
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
          .until(() -> locks.tryAcquire("acct:e3").map(h -> {
            h.close();
            return false;
          }).orElse(true) && !accounts.tally().gate.isCancelled());
      accounts.tally().gate.complete("done"); // the work ends: only now is the lock free
      await().atMost(Duration.ofSeconds(30))
          .until(() -> locks.tryAcquire("acct:e3").map(h -> {
            h.close();
            return true;
          }).orElse(false));
    });
  }

  /** Fenced writes from a lock whose lease runs out while the work sleeps. */
  public static class Ledger {
    final FencedWriter fenced;

    Ledger(MongoCollection<Document> ledger) {
      this.fenced = FencedWriter.of(ledger);
    }

    @LeaseLocked(key = "'ledger'", service = "shortLease")
    public void blocking(LockHandle lock) {
      sleep(900);
      fenced.updateOne(lock, "l1", Updates.inc("n", 1));
    }

    @LeaseLocked(key = "'ledger'", service = "shortLease")
    public Mono<Void> reactive(LockHandle lock) {
      return Mono.delay(Duration.ofMillis(900))
          .then(Mono.fromRunnable(() -> fenced.updateOne(lock, "l1", Updates.inc("n", 1))));
    }
  }

  @Test
  void aLeaseLostMidWorkIsReportedAsForABlockingMethod() {
    MongoCollection<Document> ledger = TestMongo.freshDatabase("leaseLost")
        .getCollection("ledger");
    ledger.insertOne(new Document("_id", "l1").append("n", 0));
    List<String> lost = new CopyOnWriteArrayList<>();
    WriteGuardListener listener = new WriteGuardListener() {
      @Override
      public void onLeaseLost(String backend, String key, long token) {
        lost.add(key + "#" + token);
      }
    };
    runner.withBean("shortLease", LockService.class, () -> MongoLeaseLockService
            .builder(TestMongo.client().getDatabase(ledger.getNamespace().getDatabaseName()),
                "locks")
            .lease(Duration.ofMillis(300)).noRenewal().listener(listener).build())
        .withBean(Ledger.class, () -> new Ledger(ledger))
        .run(context -> {
          Ledger bean = context.getBean(Ledger.class);
          Throwable blocking = org.assertj.core.api.Assertions.catchThrowable(
              () -> bean.blocking(null));
          Throwable reactive = org.assertj.core.api.Assertions.catchThrowable(
              () -> bean.reactive(null).block(Duration.ofSeconds(30)));
          assertThat(blocking).isInstanceOf(PessimisticLockingFailureException.class)
              .hasCauseInstanceOf(StaleLockException.class);
          assertThat(reactive).isInstanceOf(PessimisticLockingFailureException.class)
              .hasCauseInstanceOf(StaleLockException.class);
          assertThat(ledger.find().first().getInteger("n")).isZero();
          assertThat(lost).hasSize(2);
        });
  }

  public static class Streams {
    @LeaseLocked(key = "'s'")
    public Flux<String> flux() {
      return Flux.just("a");
    }
  }

  public static class PlainFuture {
    @LeaseLocked(key = "'f'")
    public Future<String> future() {
      return CompletableFuture.completedFuture("f");
    }
  }

  @Test
  void aFluxOrAPlainFutureIsStillRefusedAtStartNamingTheMethod() {
    for (Class<?> bean : List.of(Streams.class, PlainFuture.class)) {
      runner.withBean(bean).run(context -> {
        assertThat(context).hasFailed();
        assertThat(context.getStartupFailure()).rootCause()
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(bean.getName() + "."
                + (bean == Streams.class ? "flux()" : "future()"))
            .hasMessageContaining("Only Mono, CompletionStage and CompletableFuture");
      });
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
