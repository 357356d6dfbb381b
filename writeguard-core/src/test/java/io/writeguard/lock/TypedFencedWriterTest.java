package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.TypedAccounts;
import io.writeguard.update.TypedAccounts.Account;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The typed fenced writer: claim decodes, replace encodes, a stale holder is still refused. */
class TypedFencedWriterTest {
  private final MongoDatabase db = TestMongo.freshDatabase("TypedFencing");
  private final MongoCollection<Account> accounts = TypedAccounts.accounts(db);
  private final MongoCollection<Document> raw = db.getCollection("accounts");
  private final TypedFencedWriter<Account> writer =
      FencedWriter.typed(accounts, b -> b.versionPolicy(VersionPolicy.defaults()));
  private final List<MongoLeaseLockService> services = new ArrayList<>();

  private MongoLeaseLockService service(MongoLeaseLockService.Builder builder) {
    MongoLeaseLockService service = builder.noCleanup().build();
    services.add(service);
    return service;
  }

  @AfterEach
  void close() {
    services.forEach(MongoLeaseLockService::close);
  }

  /**
   * A holder claims the record, pauses past its lease (its clock frozen, so it still believes
   * it holds the lock), a newer holder claims and replaces; the paused holder's typed replace
   * is refused as stale and the newer write stays.
   */
  @Test
  void aStaleHoldersTypedReplaceIsRefused() throws Exception {
    TypedUpdater<Account> updater = VersionedUpdater.typed(accounts);
    updater.insert(new Account("acc", 10, List.of(), null));
    FakeTime frozen = new FakeTime();
    MongoLeaseLockService paused = service(MongoLeaseLockService.builder(db, "locks")
        .lease(Duration.ofMillis(200)).noRenewal().ticker(frozen.ticker()));
    MongoLeaseLockService other =
        service(MongoLeaseLockService.builder(db, "locks").lease(Duration.ofSeconds(10)));

    LockHandle stale = paused.acquire("acc-lock", Duration.ofSeconds(5));
    Account staleRead = writer.claim(stale, "acc").orElseThrow();
    assertThat(staleRead.balance()).isEqualTo(10);
    assertThat(staleRead.version()).as("claim raises the version with the fence").isEqualTo(1L);
    Thread.sleep(400); // the "pause": past the lease on the server's clock
    try (LockHandle newer = other.acquire("acc-lock", Duration.ofSeconds(5))) {
      assertThat(newer.token()).isGreaterThan(stale.token());
      Account read = writer.claim(newer, "acc").orElseThrow();
      assertThat(writer.replaceOne(newer, "acc", read.deposit(5, "newer")))
          .isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    assertThat(stale.isLost()).as("the paused holder has not noticed").isFalse();

    assertThatThrownBy(() -> writer.replaceOne(stale, "acc", staleRead.deposit(1, "stale")))
        .isInstanceOf(StaleLockException.class);
    Account after = accounts.find(eq("_id", "acc")).first();
    assertThat(after.balance()).isEqualTo(15);
    assertThat(after.log()).containsExactly("newer");
    assertThat(after.version()).isEqualTo(3L);
    assertThat(raw.find(eq("_id", "acc")).first().get(Fencing.FIELD)).isNotNull();
  }

  /**
   * A replacement read at an old version is not written over a versioned update that came in
   * between (the fence alone would allow it: same holder).
   */
  @Test
  void aTypedReplaceReadBeforeAVersionedUpdateDoesNotEraseIt() throws Exception {
    TypedUpdater<Account> updater = VersionedUpdater.typed(accounts);
    updater.insert(new Account("v", 0, List.of(), null));
    try (LockHandle lock = LocalLockService.create().acquire("v", Duration.ofSeconds(5))) {
      Account read = writer.claim(lock, "v").orElseThrow();
      updater.update("v", TypedMutator.replacing(a -> a.deposit(7, "optimistic")));
      assertThat(writer.replaceOne(lock, "v", read.deposit(1, "fenced")))
          .isEqualTo(FencedWriter.Outcome.FILTER_NOT_MATCHED);
      assertThat(accounts.find(eq("_id", "v")).first().log()).containsExactly("optimistic");

      Account fresh = writer.claim(lock, "v").orElseThrow();
      assertThat(writer.replaceOne(lock, "v", fresh.deposit(1, "fenced")))
          .isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    Account after = accounts.find(eq("_id", "v")).first();
    assertThat(after.balance()).isEqualTo(8);
    assertThat(after.log()).containsExactly("optimistic", "fenced");
  }

  @Test
  void claimOfAMissingDocumentIsEmpty() throws Exception {
    try (LockHandle lock = LocalLockService.create().acquire("x", Duration.ofSeconds(5))) {
      assertThat(writer.claim(lock, "nobody")).isEmpty();
      assertThat(writer.replaceOne(lock, "nobody", new Account("nobody", 1, List.of(), null)))
          .isEqualTo(FencedWriter.Outcome.NOT_FOUND);
    }
    assertThat(accounts.countDocuments()).isZero();
  }
}
