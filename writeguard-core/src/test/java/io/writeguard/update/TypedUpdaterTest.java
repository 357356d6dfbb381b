package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.TypedAccounts.Account;
import io.writeguard.update.TypedAccounts.Wallet;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The typed updater on a record and a POJO collection: exact totals, the version rules. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TypedUpdaterTest {
  private static final int THREADS = 64;
  private static final int PER_THREAD = 4;

  private final MongoDatabase db = TestMongo.freshDatabase("Typed");
  private final MongoCollection<Account> accounts = TypedAccounts.accounts(db);
  private final MongoCollection<Wallet> wallets = TypedAccounts.wallets(db);
  private final MongoCollection<Document> raw = db.getCollection("accounts");

  private static TypedUpdater<Account> accountUpdater(
      MongoCollection<Account> collection, boolean groupCommit) {
    return VersionedUpdater.typed(collection, b -> b.groupCommit(groupCommit)
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(100_000)
            .deadline(Duration.ofSeconds(150))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build()));
  }

  /**
   * 64 threads read-modify-write one record in Java (balance + 1, their own log entry), with
   * group commit on and off: a lost update would show as a short balance or a missing entry.
   */
  @ParameterizedTest(name = "groupCommit={0}")
  @ValueSource(booleans = {true, false})
  void recordsLoseNothingUnderSixtyFourWriters(boolean groupCommit) throws Exception {
    TypedUpdater<Account> updater = accountUpdater(accounts, groupCommit);
    updater.insert(new Account("acc", 0, List.of(), null));
    Concurrently.run(THREADS, Duration.ofSeconds(170), thread -> {
      for (int i = 0; i < PER_THREAD; i++) {
        String entry = thread + ":" + i;
        updater.update("acc", TypedMutator.replacing(a -> a.deposit(1, entry)));
      }
    });
    Account after = accounts.find(eq("_id", "acc")).first();
    int total = THREADS * PER_THREAD;
    assertThat(after.balance()).isEqualTo(total);
    assertThat(after.log()).hasSize(total);
    assertThat(new HashSet<>(after.log())).hasSize(total);
    assertThat(after.version()).isEqualTo(total);
  }

  /** The same with a mutable POJO whose decoded copy the mutator changes and returns. */
  @ParameterizedTest(name = "groupCommit={0}")
  @ValueSource(booleans = {true, false})
  void pojosLoseNothingUnderSixtyFourWriters(boolean groupCommit) throws Exception {
    TypedUpdater<Wallet> updater = VersionedUpdater.typed(wallets, b -> b
        .groupCommit(groupCommit)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100_000)
            .deadline(Duration.ofSeconds(150))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build()));
    Wallet inserted = updater.insert(new Wallet("w", 0));
    assertThat(inserted.getVersion()).isZero();
    Concurrently.run(THREADS, Duration.ofSeconds(170), thread -> {
      for (int i = 0; i < PER_THREAD; i++) {
        String entry = thread + ":" + i;
        updater.updateOne("w", w -> {
          w.setBalance(w.getBalance() + 1);
          w.getLog().add(entry);
          return TypedMutation.replace(w);
        });
      }
    });
    Wallet after = wallets.find(eq("_id", "w")).first();
    int total = THREADS * PER_THREAD;
    assertThat(after.getBalance()).isEqualTo(total);
    assertThat(new HashSet<>(after.getLog())).hasSize(total);
    assertThat(after.getVersion()).isEqualTo(total);
  }

  /** A mutator may answer with update operators; the outcome decodes the written document. */
  @Test
  void aMutatorMayReturnAMutationAndTheOutcomeCarriesTheDecodedValue() {
    TypedUpdater<Account> updater = accountUpdater(accounts, true);
    updater.insert(new Account("m", 10, List.of("open"), null));
    TypedOutcome<Account> outcome = updater.update("m", a -> TypedMutation.of(
        Mutation.update(Updates.combine(Updates.inc("balance", a.balance()),
            Updates.push("log", "doubled")))));
    assertThat(outcome.written()).isTrue();
    assertThat(outcome.version()).isEqualTo(1);
    assertThat(outcome.value()).contains(new Account("m", 20, List.of("open", "doubled"), 1L));

    TypedOutcome<Account> none = updater.update("m", a -> TypedMutation.none());
    assertThat(none.written()).isFalse();
    assertThat(none.value()).contains(new Account("m", 20, List.of("open", "doubled"), 1L));
    assertThat(updater.updateOne("m", TypedMutator.replacing(a -> a.deposit(1, "x"))).value())
        .isEmpty();
  }

  /**
   * The version is read from the mapped field: a returned value carrying another version is
   * refused like a Document replacement carrying one, and nothing is written.
   */
  @Test
  void aReturnedValueWithAnotherVersionIsRefusedAndNothingIsWritten() {
    TypedUpdater<Account> updater = accountUpdater(accounts, true);
    updater.insert(new Account("v", 5, List.of(), null));
    assertThatThrownBy(() -> updater.update("v",
        a -> TypedMutation.replace(new Account("v", 6, List.of(), a.version() + 7))))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining("version");
    // Version as read, or null ("not set"): accepted, the library writes version + 1.
    updater.update("v", TypedMutator.replacing(a -> a.deposit(1, "as-read")));
    updater.update("v", a -> TypedMutation.replace(new Account("v", 100, List.of(), null)));
    Account after = accounts.find(eq("_id", "v")).first();
    assertThat(after).isEqualTo(new Account("v", 100, List.of(), 2L));
    assertThat(raw.find(eq("_id", "v")).first().get("version")).isEqualTo(2L);
  }

  /** A returned value with another _id is refused as a Document replacement is. */
  @Test
  void aReturnedValueWithAnotherIdIsRefused() {
    TypedUpdater<Account> updater = accountUpdater(accounts, false);
    updater.insert(new Account("a", 1, List.of(), null));
    assertThatThrownBy(() -> updater.update("a",
        a -> TypedMutation.replace(new Account("b", 1, List.of(), a.version()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("_id");
    assertThat(accounts.find(eq("_id", "a")).first().version()).isZero();
    assertThat(accounts.countDocuments()).isEqualTo(1);
  }

  /**
   * A record inserted straight through the typed collection with a null version has no
   * version field (the codec omits nulls): a legacy document, adopted under the default
   * policy (first write sets version 1) and refused under MissingVersion.REFUSE.
   */
  @Test
  void aRecordInsertedWithANullVersionIsALegacyDocument() {
    accounts.insertOne(new Account("legacy", 3, List.of(), null));
    assertThat(raw.find(eq("_id", "legacy")).first()).doesNotContainKey("version");

    TypedUpdater<Account> refusing = VersionedUpdater.typed(accounts, b -> b.versionPolicy(
        VersionPolicy.builder().missingVersion(VersionPolicy.MissingVersion.REFUSE).build()));
    assertThatThrownBy(() -> refusing.update("legacy",
        TypedMutator.replacing(a -> a.deposit(1, "x"))))
        .isInstanceOf(InvalidVersionException.class)
        .hasMessageContaining("legacy");
    assertThat(accounts.find(eq("_id", "legacy")).first().balance()).isEqualTo(3);

    TypedOutcome<Account> adopted = accountUpdater(accounts, true)
        .update("legacy", TypedMutator.replacing(a -> a.deposit(1, "x")));
    assertThat(adopted.version()).isEqualTo(1);
    assertThat(adopted.value()).contains(new Account("legacy", 4, List.of("x"), 1L));
  }

  /** The typed insert stamps version 0 on a null version and refuses any other version. */
  @Test
  void theTypedInsertStampsVersionZero() {
    TypedUpdater<Account> updater = accountUpdater(accounts, true);
    assertThat(updater.insert(new Account("n", 0, List.of(), null)).version()).isZero();
    assertThat(raw.find(eq("_id", "n")).first().get("version")).isEqualTo(0L);
    assertThatThrownBy(() -> updater.insert(new Account("seven", 0, List.of(), 7L)))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining("7");
    assertThat(accounts.countDocuments(eq("_id", "seven"))).isZero();
  }

  /**
   * A competing typed write inside the mutator moves the version after the read: the outer
   * write must re-read and apply its change on top, not overwrite the competing one.
   */
  @ParameterizedTest(name = "groupCommit={0}")
  @ValueSource(booleans = {true, false})
  void aCompetingWriteInsideTheMutatorIsNotLost(boolean groupCommit) {
    TypedUpdater<Account> updater = accountUpdater(accounts, groupCommit);
    updater.insert(new Account("c", 0, List.of(), null));
    List<Long> seen = new ArrayList<>();
    TypedOutcome<Account> outcome = updater.update("c", a -> {
      seen.add(a.balance());
      if (seen.size() == 1) {
        updater.update("c", TypedMutator.replacing(b -> b.deposit(100, "competitor")));
      }
      return TypedMutation.replace(a.deposit(1, "outer"));
    });
    assertThat(seen).containsExactly(0L, 100L);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(outcome.value())
        .contains(new Account("c", 101, List.of("competitor", "outer"), 2L));
  }

  /** A Document collection works through the typed layer too. */
  @Test
  void documentCollectionsStillWork() {
    MongoCollection<Document> docs = db.getCollection("docs");
    docs.insertOne(new Document("_id", 1).append("n", 1L).append("version", 0L));
    TypedUpdater<Document> updater = VersionedUpdater.typed(docs);
    TypedOutcome<Document> outcome = updater.update(1, d -> TypedMutation.replace(
        new Document(d).append("n", d.getLong("n") + 1)));
    assertThat(outcome.value().orElseThrow().getLong("n")).isEqualTo(2L);
    assertThat(outcome.version()).isEqualTo(1);
  }

  /** A class the collection's codecs cannot map is refused when the updater is built. */
  @Test
  void aClassWithoutACodecIsRefusedAtBuildTime() {
    MongoCollection<Thread> threads = db.getCollection("t", Thread.class)
        .withCodecRegistry(com.mongodb.MongoClientSettings.getDefaultCodecRegistry());
    assertThatThrownBy(() -> VersionedUpdater.typed(threads))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Thread");
  }
}
