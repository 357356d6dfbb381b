package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.counter.CounterLayout;
import io.writeguard.counter.ShardedCounter;
import io.writeguard.idempotency.OpResult;
import io.writeguard.idempotency.OperationIdGuard;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 8, "mixing writers loses updates": a write that does not go through the updater lands
 * between the updater's read and its write, from inside the mutator (the nastiest place: the
 * mutator has already read the old value). When that write raises the version, the updater's
 * compare-and-set misses, it re-reads and nothing is lost.
 */
class MixedWritersRegressionTest {
  private final MongoDatabase db = TestMongo.freshDatabase("MixedWriters");
  private final MongoCollection<Document> docs = db.getCollection("docs");
  private final VersionPolicy policy = VersionPolicy.defaults();
  private final VersionedUpdater updater = VersionedUpdater.builder(docs).build();
  private final List<MongoLeaseLockService> services = new ArrayList<>();

  @AfterEach
  void close() {
    services.forEach(MongoLeaseLockService::close);
  }

  @Test
  void aVersionedAddToSetInsideTheMutatorIsNotErased() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("read", List.of("a")));
    AtomicInteger calls = new AtomicInteger();

    UpdateOutcome outcome = updater.update("d", current -> {
      if (calls.incrementAndGet() == 1) {
        docs.updateOne(eq("_id", "d"),
            AtomicUpdates.versioned(policy).addToSet(FieldPath.of("read"), "b"));
      }
      List<String> read = new ArrayList<>(current.getList("read", String.class));
      read.add("c");
      return Mutation.update(Updates.set("read", read));
    });

    assertThat(outcome.attempts()).isEqualTo(2); // the first write saw the conflict
    assertThat(docs.find(eq("_id", "d")).first().getList("read", String.class))
        .containsExactly("a", "b", "c");
  }

  /** Why the unbound form is documented as unsafe next to a versioned mutator. */
  @Test
  void anUnboundAddToSetInsideTheMutatorIsErasedAsTheDocsWarn() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("read", List.of("a")));
    AtomicInteger calls = new AtomicInteger();

    updater.update("d", current -> {
      if (calls.incrementAndGet() == 1) {
        docs.updateOne(eq("_id", "d"), AtomicUpdates.addToSet(FieldPath.of("read"), "b"));
      }
      return Mutation.update(Updates.set("read", List.of("a", "c")));
    });

    assertThat(docs.find(eq("_id", "d")).first().getList("read", String.class))
        .containsExactly("a", "c");
  }

  @Test
  void aFencedIncUnderAMongoLeaseLockInsideTheMutatorIsNotOverwritten() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("n", 0L));
    MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build();
    services.add(locks);
    FencedWriter fenced = FencedWriter.builder(docs).versionPolicy(policy).build();
    AtomicInteger calls = new AtomicInteger();

    UpdateOutcome outcome = updater.update("d", current -> {
      if (calls.incrementAndGet() == 1) {
        try (LockHandle lock = locks.acquire("doc:d", Duration.ofSeconds(10))) {
          assertThat(fenced.updateOne(lock, "d", Updates.inc("n", 100L)))
              .isEqualTo(FencedWriter.Outcome.APPLIED);
        }
      }
      return Mutation.update(Updates.set("n", current.getLong("n") + 1));
    });

    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(docs.find(eq("_id", "d")).first().getLong("n")).isEqualTo(101L);
  }

  /**
   * A claim moves the fence; a replacing mutator that read the old fence would write it back
   * and lower it, letting a stale holder through. A versioned claim moves the version too.
   */
  @Test
  void aVersionedClaimInsideAReplacingMutatorKeepsTheRaisedFence() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("n", 0L));
    MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build();
    services.add(locks);
    FencedWriter fenced = FencedWriter.builder(docs).versionPolicy(policy).build();
    AtomicInteger calls = new AtomicInteger();
    long[] token = new long[1];

    updater.update("d", current -> {
      if (calls.incrementAndGet() == 1) {
        try (LockHandle lock = locks.acquire("doc:d", Duration.ofSeconds(10))) {
          token[0] = lock.token();
          assertThat(fenced.claim(lock, "d")).isPresent();
        }
      }
      current.put("n", current.getLong("n") + 1);
      return Mutation.replace(current);
    });

    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.get("_fence", Number.class).longValue()).isEqualTo(token[0]);
    assertThat(stored.getLong("n")).isEqualTo(1L);
  }

  @Test
  void aVersionedFencedReplaceReplacesOnlyTheVersionItWasReadAt() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("n", 0L));
    MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build();
    services.add(locks);
    FencedWriter fenced = FencedWriter.builder(docs).versionPolicy(policy).build();

    try (LockHandle lock = locks.acquire("doc:d", Duration.ofSeconds(10))) {
      Document read = fenced.claim(lock, "d").orElseThrow();
      updater.update("d", current -> Mutation.update(Updates.inc("n", 5L))); // moves the version
      read.put("n", 1L);
      assertThat(fenced.replaceOne(lock, "d", read))
          .isEqualTo(FencedWriter.Outcome.FILTER_NOT_MATCHED);

      Document again = fenced.claim(lock, "d").orElseThrow();
      again.put("n", again.getLong("n") + 1);
      assertThat(fenced.replaceOne(lock, "d", again)).isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.getLong("n")).isEqualTo(6L);
    assertThat(stored.getLong("version")).isEqualTo(4L); // claim, update, claim, replace
  }

  @Test
  void anOperationIdGuardWriteInsideTheMutatorIsNotOverwritten() {
    VersionedInsert.insertOne(docs, policy, new Document("_id", "d").append("n", 0L));
    OperationIdGuard guard = OperationIdGuard.builder().versionPolicy(policy).build();
    AtomicInteger calls = new AtomicInteger();

    updater.update("d", current -> {
      if (calls.incrementAndGet() == 1) {
        assertThat(guard.apply(docs, "d", Updates.inc("n", 100L), "op-1"))
            .isEqualTo(OpResult.APPLIED);
      }
      return Mutation.update(Updates.set("n", current.getLong("n") + 1));
    });

    assertThat(docs.find(eq("_id", "d")).first().getLong("n")).isEqualTo(101L);
  }

  @Test
  void aCounterIncrementOnAVersionedDocumentInsideTheMutatorIsNotOverwritten() {
    VersionedInsert.insertOne(docs, policy,
        new Document("_id", "acct").append("balance_shard_0", 5L).append("owner", "x"));
    ShardedCounter counter = ShardedCounter.builder(docs).layout(CounterLayout.FIELDS).shards(1)
        .versionPolicy(policy).build();
    AtomicInteger calls = new AtomicInteger();

    updater.update("acct", current -> {
      if (calls.incrementAndGet() == 1) {
        counter.increment("acct", 10);
      }
      return Mutation.update(Updates.set("balance_shard_0",
          current.getLong("balance_shard_0") * 2)); // a mutator that reads the balance
    });

    assertThat(counter.total("acct")).isEqualTo(30L);
  }

  @Test
  void theUpdatersOwnAtomicFormsRaiseItsVersionField() {
    VersionPolicy rev = VersionPolicy.builder().field("rev").build();
    VersionedUpdater revUpdater = VersionedUpdater.builder(docs).versionPolicy(rev).build();
    assertThat(revUpdater.atomicUpdates().push(FieldPath.of("log"), "x").toBsonDocument()
        .toJson()).isEqualTo("{\"$push\": {\"log\": \"x\"}, \"$inc\": {\"rev\": 1}}");
  }

  @Test
  void versionedAtomicFormsRefuseToWriteTheVersionThemselves() {
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(policy);
    assertThatThrownBy(() -> atomic.set(FieldPath.of("version"), 7L))
        .isInstanceOf(VersionFieldException.class).hasMessageContaining("version");
    assertThatThrownBy(() -> atomic.raising(Updates.inc("version", 1L)))
        .isInstanceOf(VersionFieldException.class);
    assertThatThrownBy(() -> atomic.raising(new Document("n", 1)))
        .isInstanceOf(RuntimeException.class);
    assertThat(atomic.inc(FieldPath.of("n"), 2L).toBsonDocument().toJson())
        .isEqualTo("{\"$inc\": {\"n\": 2, \"version\": 1}}");
  }
}
