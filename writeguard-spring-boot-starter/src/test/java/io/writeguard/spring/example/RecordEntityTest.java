package io.writeguard.spring.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.spring.TestServers;
import io.writeguard.testing.Concurrently;
import io.writeguard.version.VersionFieldException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example application with an immutable entity: a Java record with Spring Data's
 * {@code @Version Long}, changed optimistically through the starter's {@code EntityUpdater} and
 * under {@code @LeaseLocked} with fenced writes, by real concurrent threads; every acknowledged
 * operation must be in the wallet exactly once, with the exact balance and version.
 */
@SpringBootTest(classes = ExampleApplication.class)
class RecordEntityTest {
  private static final Duration BOUND = Duration.ofSeconds(120);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("spring.mongodb.uri", TestServers::mongoUri);
    registry.add("spring.mongodb.database", () -> TestServers.freshDatabase("record"));
    registry.add("spring.data.redis.url", TestServers::redisUri);
    // Many threads on one document on a loaded 2-core machine: a generous retry budget, so the
    // exact totals test lost updates, not the budget.
    registry.add("writeguard.updater.max-attempts", () -> "1000");
    registry.add("writeguard.updater.deadline", () -> "100s");
  }

  @Autowired WalletService service;
  @Autowired WalletRepository repository;
  @Autowired MongoTemplate template;

  private String id;

  @BeforeEach
  void newWallet() {
    id = "wallet-" + System.nanoTime();
    Wallet inserted = template.insert(Wallet.open(id));
    assertThat(inserted.version()).isZero(); // Spring Data made a new record with version 0
  }

  @Test
  void concurrentOptimisticDepositsOfARecordLoseNothing() throws Exception {
    int threads = 8;
    int rounds = 20;
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    Concurrently.run(threads, BOUND, thread -> {
      for (int i = 0; i < rounds; i++) {
        String request = "d-" + thread + "-" + i;
        Wallet written = service.deposit(id, 1 + thread, request);
        assertThat(written.log()).contains(request); // the record returned is the one written
        acknowledged.add(request);
      }
    });

    Wallet wallet = repository.findById(id).orElseThrow();
    assertThat(wallet.log()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(acknowledged);
    assertThat(acknowledged).hasSize(threads * rounds);
    assertThat(wallet.balance()).isEqualTo(rounds * (threads * (threads + 1L) / 2));
    assertThat(wallet.version()).isEqualTo((long) threads * rounds); // one step per deposit
  }

  @Test
  void concurrentLockedWithdrawalsAndOptimisticDepositsLoseNothingAndNeverOverdraw()
      throws Exception {
    long funds = 30;
    service.deposit(id, funds, "seed");
    int threads = 8;
    int rounds = 10; // 80 withdrawals of 1 each, 40 deposits of 1, on funds of 30: some refused
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicLong paid = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong deposited = new AtomicLong();
    Concurrently.run(threads, BOUND, thread -> {
      for (int i = 0; i < rounds; i++) {
        String withdrawal = "w-" + thread + "-" + i;
        OptionalLong token = service.withdraw(id, 1, withdrawal, null);
        if (token.isPresent()) {
          acknowledged.add(withdrawal);
          paid.incrementAndGet();
        } else {
          refused.incrementAndGet();
        }
        if (thread % 2 == 0) {
          String deposit = "d-" + thread + "-" + i;
          service.deposit(id, 1, deposit);
          acknowledged.add(deposit);
          deposited.incrementAndGet();
        }
      }
    });

    Wallet wallet = repository.findById(id).orElseThrow();
    List<String> expectedLog = new ArrayList<>(acknowledged);
    expectedLog.add("seed");
    assertThat(wallet.log()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expectedLog);
    assertThat(paid.get() + refused.get()).isEqualTo((long) threads * rounds);
    assertThat(refused.get()).isPositive(); // the funds check was exercised
    assertThat(wallet.balance()).isEqualTo(funds + deposited.get() - paid.get()).isNotNegative();
    // One step per deposit (the seed too), one per claim, one per paid withdrawal's write.
    assertThat(wallet.version())
        .isEqualTo(1 + deposited.get() + (paid.get() + refused.get()) + paid.get());
  }

  @Test
  void concurrentLockedWithdrawalsPayExactlyTheFundsAndNoMore() throws Exception {
    long funds = 30;
    service.deposit(id, funds, "seed");
    int threads = 8;
    int rounds = 10; // 80 withdrawals of 1 on funds of 30: two holders at once would overpay
    Set<String> paid = ConcurrentHashMap.newKeySet();
    Set<Long> tokens = ConcurrentHashMap.newKeySet();
    Concurrently.run(threads, BOUND, thread -> {
      for (int i = 0; i < rounds; i++) {
        String withdrawal = "w-" + thread + "-" + i;
        OptionalLong token = service.withdraw(id, 1, withdrawal, null);
        token.ifPresent(t -> {
          paid.add(withdrawal);
          tokens.add(t);
        });
      }
    });

    Wallet wallet = repository.findById(id).orElseThrow();
    assertThat(paid).hasSize((int) funds);
    assertThat(tokens).hasSize((int) funds); // every paying holder had its own token
    assertThat(wallet.balance()).isZero();
    List<String> expectedLog = new ArrayList<>(paid);
    expectedLog.add("seed");
    assertThat(wallet.log()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expectedLog);
    // The seed, one claim per withdrawal, one write per paid one.
    assertThat(wallet.version()).isEqualTo(1 + threads * rounds + funds);
  }

  @Test
  void aLockedWithdrawalInsideADepositsChangeMakesTheDepositRetryAndBothCount() {
    service.deposit(id, 10, "seed");
    AtomicLong attempts = new AtomicLong();
    AtomicLong token = new AtomicLong();

    Wallet written = service.change(id, wallet -> {
      if (attempts.incrementAndGet() == 1) {
        // between this attempt's read and its write, a locked fenced withdrawal lands
        token.set(service.withdraw(id, 3, "w-inside", null).orElseThrow());
      }
      return wallet.credit(5, "d-inside");
    });

    assertThat(attempts.get()).isEqualTo(2); // the first replace was refused on the version
    assertThat(written).isEqualTo(new Wallet(id, 12, List.of("seed", "w-inside", "d-inside"), 4L));
    Document stored = template.getCollection("wallets").find(new Document("_id", id)).first();
    assertThat(stored.get("_fence")).isEqualTo(token.get());
  }

  @Test
  void theRecordUpdaterKeepsTheFenceTheRecordDoesNotMap() {
    service.deposit(id, 5, "d-1");
    long token = service.withdraw(id, 2, "w-1", null).orElseThrow();
    Wallet written = service.deposit(id, 7, "d-2");

    Document stored = template.getCollection("wallets").find(new Document("_id", id)).first();
    assertThat(stored.get("_fence")).isEqualTo(token); // a replace that dropped it would lower it
    assertThat(written).isEqualTo(new Wallet(id, 10, List.of("d-1", "w-1", "d-2"), 4L));
    assertThat(repository.findById(id)).contains(written);
  }

  @Test
  void aChangedVersionInTheReturnedRecordIsRefusedAndNothingWritten() {
    service.deposit(id, 5, "d-1");

    assertThatThrownBy(() -> service.change(id, w -> w.credit(1, "bad").withVersion(w.version() + 7)))
        .isInstanceOf(InvalidDataAccessApiUsageException.class)
        .hasCauseInstanceOf(VersionFieldException.class)
        .hasMessageContaining("'version'").hasMessageContaining("8");
    assertThat(repository.findById(id)).contains(new Wallet(id, 5, List.of("d-1"), 1L));

    // A null version is "not set": the record is written and WriteGuard raises the version.
    Wallet written = service.change(id, w -> w.credit(1, "d-2").withVersion(null));
    assertThat(written).isEqualTo(new Wallet(id, 6, List.of("d-1", "d-2"), 2L));
  }

  @Test
  void aRecordReturnedWithAnotherIdIsRefusedAndNothingWritten() {
    service.deposit(id, 5, "d-1");
    String other = "wallet-other-" + System.nanoTime();

    assertThatThrownBy(() -> service.change(id,
        w -> new Wallet(other, w.balance() + 1, w.log(), w.version())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(id).hasMessageContaining(other);
    assertThat(repository.findById(id)).contains(new Wallet(id, 5, List.of("d-1"), 1L));
    assertThat(repository.findById(other)).isEmpty();
  }

  @Test
  void springDataSaveOfAStaleRecordIsRefusedAfterAWriteGuardUpdate() {
    Wallet stale = repository.findById(id).orElseThrow();
    Wallet written = service.deposit(id, 3, "d-1");
    assertThat(written.version()).isEqualTo(stale.version() + 1);

    assertThatThrownBy(() -> repository.save(stale.credit(1_000, "stale")))
        .isInstanceOf(OptimisticLockingFailureException.class);
    assertThat(repository.findById(id)).contains(written);

    // Spring Data's save of a fresh record raises the same field WriteGuard then checks.
    Wallet saved = repository.save(written.credit(1, "saved"));
    assertThat(saved.version()).isEqualTo(written.version() + 1);
    assertThat(service.deposit(id, 4, "d-2"))
        .isEqualTo(new Wallet(id, 8, List.of("d-1", "saved", "d-2"), saved.version() + 1));
  }
}
