package io.writeguard.spring.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.spring.CurrentLock;
import io.writeguard.spring.TestServers;
import io.writeguard.spring.WriteGuardHealthIndicator;
import io.writeguard.testing.Concurrently;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example application against the embedded MongoDB and Redis: the starter's beans as a
 * Spring user gets them, an entity with Spring Data's {@code @Version Long}, and concurrent
 * requests (real threads) that must lose nothing.
 */
@SpringBootTest(classes = ExampleApplication.class)
class ExampleApplicationTest {
  private static final Duration BOUND = Duration.ofSeconds(120);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("spring.mongodb.uri", TestServers::mongoUri);
    registry.add("spring.mongodb.database", () -> TestServers.freshDatabase("example"));
    registry.add("spring.data.redis.url", TestServers::redisUri);
    // Eight threads on one document on a loaded 2-core machine: a generous retry budget, so
    // the exact totals below test lost updates, not the budget.
    registry.add("writeguard.updater.max-attempts", () -> "1000");
    registry.add("writeguard.updater.deadline", () -> "100s");
  }

  @Autowired AccountService service;
  @Autowired AccountRepository repository;
  @Autowired MongoTemplate template;
  @Autowired MeterRegistry meters;
  @Autowired WriteGuardHealthIndicator health;
  @Autowired MongoLeaseLockService mongoLocks;
  @Autowired @org.springframework.beans.factory.annotation.Qualifier("writeGuardRedisLockService")
  LockService redisLocks;

  private String id;

  @BeforeEach
  void newAccount() {
    id = "acct-" + System.nanoTime();
    template.insert(new Account(id, "ada"));
  }

  @Test
  void concurrentDepositsAndLockedSettlementsLoseNothing() throws Exception {
    int threads = 8;
    int rounds = 15;
    Concurrently.run(threads, BOUND, thread -> {
      for (int i = 0; i < rounds; i++) {
        service.deposit(id, 1 + thread);
        service.settle(id, 10, null);
      }
    });

    Account account = template.findById(id, Account.class);
    long deposits = (long) threads * rounds;
    long expectedBalance = rounds * (threads * (threads + 1L) / 2);
    assertThat(account.getBalance()).isEqualTo(expectedBalance);
    assertThat(account.getSettled()).isEqualTo(deposits * 10);
    // One version step per deposit, two per settlement (the claim and the write): nothing was
    // written around the version, so Spring Data's own checks stay valid.
    assertThat(account.getVersion()).isEqualTo(deposits + 2 * deposits);
  }

  @Test
  void redisLockedSettlementsLoseNothingAndTokensOnlyRise() throws Exception {
    int threads = 6;
    int rounds = 10;
    Set<Long> tokens = ConcurrentHashMap.newKeySet();
    Concurrently.run(threads, BOUND, thread -> {
      for (int i = 0; i < rounds; i++) {
        tokens.add(service.settleViaRedis(id, 3));
      }
    });

    assertThat(template.findById(id, Account.class).getSettled()).isEqualTo(threads * rounds * 3L);
    assertThat(tokens).hasSize(threads * rounds); // every holder had its own token
    assertThat(CurrentLock.find()).isEmpty();
  }

  @Test
  void theEntityUpdaterKeepsTheFenceItDoesNotMap() {
    long token = service.settle(id, 5, null);
    service.deposit(id, 7);

    Document stored = template.getCollection("accounts").find(new Document("_id", id)).first();
    assertThat(stored.get("_fence")).isEqualTo(token); // a replace that dropped it would lower it
    assertThat(stored.get("balance")).isEqualTo(7L);
    assertThat(stored.get("settled")).isEqualTo(5L);
    assertThat(stored.get("owner")).isEqualTo("ada");
  }

  @Test
  void springDataSaveOfAStaleEntityIsRefusedAfterAWriteGuardUpdate() {
    Account stale = template.findById(id, Account.class);
    Account written = service.deposit(id, 3);
    assertThat(written.getVersion()).isEqualTo(stale.getVersion() + 1);

    stale.setOwner("mallory");
    assertThatThrownBy(() -> template.save(stale))
        .isInstanceOf(OptimisticLockingFailureException.class);
    assertThat(template.findById(id, Account.class).getBalance()).isEqualTo(3);

    Account fresh = template.findById(id, Account.class);
    long read = fresh.getVersion();
    fresh.setOwner("grace");
    template.save(fresh); // Spring Data raises the same version field WriteGuard reads
    assertThat(service.deposit(id, 4).getVersion()).isEqualTo(read + 2);
    assertThat(template.findById(id, Account.class).getOwner()).isEqualTo("grace");
  }

  @Test
  void aLockHeldElsewhereTimesOutAsCannotAcquireLockAndTheBodyNeverRuns() {
    int before = service.lockedBodies();
    try (LockHandle held = mongoLocks.acquire("account:" + id, Duration.ofSeconds(30))) {
      assertThatThrownBy(() -> service.settleImpatiently(id))
          .isInstanceOf(CannotAcquireLockException.class)
          .hasMessageContaining("account:" + id);
    }
    assertThat(service.lockedBodies()).isEqualTo(before);
  }

  @Test
  void theLockIsReleasedWhenTheMethodThrows() {
    assertThatThrownBy(() -> service.failWhileLocked(id))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(id);

    Optional<LockHandle> again = mongoLocks.tryAcquire("account:" + id);
    assertThat(again).isPresent();
    again.get().close();
    assertThat(CurrentLock.find()).isEmpty();
  }

  @Test
  void reenteringAHeldKeyFailsAtOnceInsteadOfWaitingForItself() {
    assertThatThrownBy(() -> service.reenter(id, service))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("account:" + id).hasMessageContaining("not reentrant");
  }

  @Test
  void aBadWaitOrAnUnknownServiceIsNamedAndNothingRuns() {
    int before = service.lockedBodies();
    assertThatThrownBy(() -> service.waitBadly(id))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("waitBadly").hasMessageContaining("'soon'");
    assertThatThrownBy(() -> service.lockElsewhere(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'zookeeper'")
        .hasMessageContaining("writeGuardMongoLockService (mongo)")
        .hasMessageContaining("writeGuardRedisLockService (redis)");
    assertThat(service.lockedBodies()).isEqualTo(before);
  }

  @Test
  void aKeyExpressionThatGivesNullIsRefusedBeforeLocking() {
    int before = service.lockedBodies();
    assertThatThrownBy(() -> service.lockOnOwner(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("#owner").hasMessageContaining("null");
    assertThat(service.lockedBodies()).isEqualTo(before);
  }

  @Test
  void aStaleHoldersFencedWriteIsRefusedAsAPessimisticLockingFailureAndTheLockReleased() {
    assertThat(service.settleWith(id, 1, () -> {}, null)).isTrue(); // parameter == CurrentLock

    assertThatThrownBy(() -> service.settleWith(id, 100, () ->
        // between this holder's claim and its write, a newer holder (its lease ran out and
        // someone else took the key) raises the fence
        template.getCollection("accounts").updateOne(new Document("_id", id),
            new Document("$inc", new Document("_fence", 1_000_000L))), null))
        .isInstanceOf(PessimisticLockingFailureException.class)
        .hasCauseInstanceOf(StaleLockException.class);

    assertThat(template.findById(id, Account.class).getSettled()).isEqualTo(1);
    Optional<LockHandle> again = mongoLocks.tryAcquire("account:" + id);
    assertThat(again).isPresent();
    again.get().close();
  }

  @Test
  void aRepositorysWriteGuardExceptionsAreTranslatedBySpring() {
    assertThat(repository.mark(id).written()).isTrue();
    assertThatThrownBy(() -> repository.mark("no-such-account"))
        .isInstanceOf(EmptyResultDataAccessException.class)
        .hasCauseInstanceOf(DocumentNotFoundException.class)
        .hasMessageContaining("no-such-account");
  }

  @Test
  void tokensRiseFromOneHolderToTheNext() {
    AtomicLong last = new AtomicLong();
    for (int i = 0; i < 3; i++) {
      long token = service.settle(id, 1, null);
      assertThat(token).isGreaterThan(last.get());
      last.set(token);
    }
  }

  @Test
  void metricsHealthAndLockServicesAreWired() {
    service.deposit(id, 1);
    assertThat(meters.find("writeguard.update.attempts").counters())
        .anySatisfy(c -> assertThat(c.count()).isPositive());

    Health status = health.health();
    assertThat(status.getStatus()).isEqualTo(Status.UP);
    assertThat(status.getDetails()).containsKeys("mongo", "redis");
    assertThat(java.util.List.<LockService>of(mongoLocks, redisLocks))
        .extracting(LockService::backend).containsExactly("mongo", "redis");
  }
}
