package io.writeguard.adaptive;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.TypedAccounts;
import io.writeguard.update.TypedAccounts.Account;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The typed adaptive updater: a hot record moves to the locked route and loses nothing. */
class TypedAdaptiveUpdaterTest {
  private final MongoCollection<Account> accounts =
      TypedAccounts.accounts(TestMongo.freshDatabase("TypedAdaptive"));

  /** The updater's own group commit is off so that the hot record conflicts and gets locked. */
  @ParameterizedTest(name = "lockedGroupCommit={0}")
  @ValueSource(booleans = {true, false})
  void aHotRecordIsLockedAndLosesNothing(boolean lockedGroupCommit) throws Exception {
    TypedUpdater<Account> updater = VersionedUpdater.typed(accounts, b -> b
        .groupCommit(false)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1_000)
            .deadline(Duration.ofSeconds(60)).build()));
    TypedAdaptiveUpdater<Account> adaptive = AdaptiveUpdater.typed(updater,
        LocalLockService.create(), b -> b
            .policy(AdaptivePolicy.builder().minAttempts(10).build())
            .lockWait(Duration.ofSeconds(30))
            .groupCommit(lockedGroupCommit));
    updater.insert(new Account("hot", 0, List.of(), null));
    int threads = 16;
    int perThread = 30;
    Set<Route> routes = ConcurrentHashMap.newKeySet();
    Concurrently.run(threads, Duration.ofSeconds(120), thread -> {
      for (int i = 0; i < perThread; i++) {
        String entry = thread + ":" + i;
        if (i % 2 == 0) {
          adaptive.update("hot", TypedMutator.replacing(a -> a.deposit(1, entry)));
        } else {
          adaptive.updateOne("hot", TypedMutator.replacing(a -> a.deposit(1, entry)));
        }
        routes.add(adaptive.routeOf("hot"));
      }
    });
    Account after = accounts.find(eq("_id", "hot")).first();
    assertThat(after.balance()).isEqualTo(threads * perThread);
    assertThat(new HashSet<>(after.log())).hasSize(threads * perThread);
    assertThat(after.version()).isEqualTo(threads * perThread);
    assertThat(routes).contains(Route.LOCKED);
  }

  @Test
  void theOutcomeCarriesTheDecodedRecord() {
    TypedUpdater<Account> updater = VersionedUpdater.typed(accounts);
    TypedAdaptiveUpdater<Account> adaptive =
        AdaptiveUpdater.typed(updater, LocalLockService.create());
    updater.insert(new Account("one", 1, List.of(), null));
    assertThat(adaptive.update("one", TypedMutator.replacing(a -> a.deposit(1, "x"))).value())
        .contains(new Account("one", 2, List.of("x"), 1L));
  }
}
