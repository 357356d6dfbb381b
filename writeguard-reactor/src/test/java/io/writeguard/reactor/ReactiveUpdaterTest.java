package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.TypedAccounts;
import io.writeguard.update.TypedAccounts.Account;
import io.writeguard.update.TypedDocumentUpdater;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.Updater;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** One reactive wrapper for every strategy behind {@link Updater} and its typed twin. */
class ReactiveUpdaterTest {
  private final ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(4).build();
  private final LockService locks = LocalLockService.create();

  @AfterEach
  void close() {
    guard.close();
  }

  @Test
  void everyStrategyRunsBehindOneReactiveWrapperAndLosesNothing() {
    MongoCollection<Document> accounts = TestMongo.freshDatabase("reactiveUpdater")
        .getCollection("accounts");
    accounts.insertOne(new Document("_id", "hot").append("balance", 0L).append("version", 0L));
    VersionedUpdater versioned = VersionedUpdater.builder(accounts)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1_000).deadline(Duration.ofSeconds(60))
            .build())
        .build();
    List<ReactiveUpdater> strategies = List.of(guard.updater(versioned),
        guard.updater(LockedUpdater.builder(versioned, locks).build()),
        guard.updater(AdaptiveUpdater.builder(versioned, locks).build()));
    int calls = 90;
    Long acknowledged = Flux.range(0, calls)
        .flatMap(i -> strategies.get(i % strategies.size())
            .updateOne("hot", current -> Mutation.update(Updates.inc("balance", 1L))))
        .count()
        .block(Duration.ofSeconds(60));
    assertThat(acknowledged).isEqualTo(calls);
    Document stored = accounts.find(Filters.eq("_id", "hot")).first();
    assertThat(stored.getLong("balance")).isEqualTo(calls);
    assertThat(strategies.get(1).blocking()).isInstanceOf(LockedUpdater.class);
  }

  @Test
  void aTypedStrategyRunsBehindOneReactiveWrapper() {
    MongoCollection<Account> accounts =
        TypedAccounts.accounts(TestMongo.freshDatabase("reactiveTyped"));
    TypedUpdater<Account> versioned = VersionedUpdater.typed(accounts);
    versioned.insert(new Account("a", 0, List.of(), null));
    TypedDocumentUpdater<Account> locked = LockedUpdater.typed(versioned, locks);
    ReactiveTypedDocumentUpdater<Account> reactive = guard.typed(locked);
    Account written = reactive.update("a", TypedMutator.replacing(a -> a.deposit(3, "x")))
        .block(Duration.ofSeconds(30)).value().orElseThrow();
    assertThat(written.balance()).isEqualTo(3);
    assertThat(written.log()).containsExactly("x");
    assertThat(reactive.blocking()).isSameAs(locked);
  }
}
