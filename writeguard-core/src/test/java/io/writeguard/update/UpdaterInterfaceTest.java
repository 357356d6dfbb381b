package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.TypedAccounts.Account;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * One application code path over {@link Updater} and {@link TypedDocumentUpdater}, run with each
 * strategy behind it: the strategy is chosen in one line where the updater is built.
 */
class UpdaterInterfaceTest {
  private final MongoDatabase db = TestMongo.freshDatabase("UpdaterInterface");
  private final MongoCollection<Document> accounts = db.getCollection("accounts");
  private final LockService locks = LocalLockService.create();

  /** The application's code: it knows only the interface. */
  private static void deposit(Updater updater, Object id, int amount) {
    updater.updateOne(id, current -> Mutation.update(inc("balance", amount)));
  }

  @Test
  void everyStrategyRunsTheSameApplicationCode() {
    VersionedUpdater versioned = VersionedUpdater.builder(accounts).build();
    List<Updater> strategies = List.of(
        versioned,
        LockedUpdater.builder(accounts, locks).build(),
        LockedUpdater.builder(versioned, locks).build(),
        AdaptiveUpdater.builder(versioned, locks).build());
    accounts.insertOne(new Document("_id", "a").append("balance", 0L).append("version", 0L));
    for (Updater updater : strategies) {
      deposit(updater, "a", 5);
      UpdateOutcome outcome = updater.update("a", current -> Mutation.none());
      assertThat(outcome.written()).isFalse();
    }
    Document after = accounts.find(eq("_id", "a")).first();
    assertThat(after.get("balance", Number.class).longValue()).isEqualTo(20);
    // Each write raised the version (a locked claim raises it too, fencing the document).
    assertThat(after.getLong("version")).isGreaterThanOrEqualTo(4);
  }

  /** The strategies may serve one document at once: no update of any of them is lost. */
  @Test
  void strategiesMixedOnOneDocumentLoseNothing() throws Exception {
    VersionedUpdater versioned = VersionedUpdater.builder(accounts)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1_000).deadline(Duration.ofSeconds(60))
            .build())
        .build();
    List<Updater> strategies = List.of(versioned,
        LockedUpdater.builder(versioned, locks).lockWait(Duration.ofSeconds(30)).build(),
        AdaptiveUpdater.builder(versioned, locks).lockWait(Duration.ofSeconds(30)).build());
    accounts.insertOne(new Document("_id", "hot").append("balance", 0L).append("version", 0L));
    int threads = 6;
    int perThread = 50;
    Concurrently.run(threads, Duration.ofSeconds(120), thread -> {
      Updater updater = strategies.get(thread % strategies.size());
      for (int i = 0; i < perThread; i++) {
        deposit(updater, "hot", 1);
      }
    });
    Document after = accounts.find(eq("_id", "hot")).first();
    assertThat(after.get("balance", Number.class).longValue()).isEqualTo(threads * perThread);
    assertThat(after.getLong("version")).isGreaterThanOrEqualTo(threads * perThread);
  }

  @Test
  void everyTypedStrategyRunsTheSameApplicationCode() {
    MongoCollection<Account> typedAccounts = TypedAccounts.accounts(db);
    TypedUpdater<Account> versioned = VersionedUpdater.typed(typedAccounts);
    versioned.insert(new Account("t", 0, List.of(), null));
    List<TypedDocumentUpdater<Account>> strategies = List.of(versioned,
        LockedUpdater.typed(versioned, locks),
        LockedUpdater.typed(versioned, locks, b -> b.lockWait(Duration.ofSeconds(2))),
        AdaptiveUpdater.typed(versioned, locks));
    int n = 0;
    for (TypedDocumentUpdater<Account> updater : strategies) {
      String entry = "e" + n++;
      TypedOutcome<Account> outcome =
          updater.update("t", TypedMutator.replacing(a -> a.deposit(2, entry)));
      assertThat(outcome.value()).get().extracting(Account::balance).isEqualTo(2L * n);
      updater.updateOne("t", TypedMutator.replacing(a -> a.deposit(0, entry + "'")));
    }
    Account after = typedAccounts.find(eq("_id", "t")).first();
    assertThat(after.balance()).isEqualTo(8);
    assertThat(new HashSet<>(after.log())).hasSize(8);
    assertThat(after.version()).isGreaterThanOrEqualTo(8);
  }

  @Test
  void theTypedLockedFactoryRefusesWhatTheBuilderRefuses() {
    TypedUpdater<Account> versioned = VersionedUpdater.typed(TypedAccounts.accounts(db));
    assertThatThrownBy(() -> LockedUpdater.typed(versioned, locks, b -> null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("settings returned null");
    assertThatThrownBy(() -> LockedUpdater.typed(versioned, locks,
        b -> b.lockWait(Duration.ofSeconds(-1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockWait");
  }
}
