package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class OperationIdGuardTest {
  private final MongoCollection<Document> accounts =
      TestMongo.freshDatabase("OpGuard").getCollection("accounts");
  private final OperationIdGuard guard = OperationIdGuard.builder().keep(3).build();

  private long balance() {
    return accounts.find(eq("_id", "a")).first().getLong("balance");
  }

  @Test
  void retriedUpdateAppliesOnce() {
    accounts.insertOne(new Document("_id", "a").append("balance", 100L));
    assertThat(guard.apply(accounts, "a", Updates.inc("balance", -30L), "op-1"))
        .isEqualTo(OpResult.APPLIED);
    assertThat(guard.apply(accounts, "a", Updates.inc("balance", -30L), "op-1"))
        .isEqualTo(OpResult.ALREADY_APPLIED);
    assertThat(balance()).isEqualTo(70L);
    assertThat(accounts.find().first().getList("_ops", String.class)).containsExactly("op-1");
  }

  @Test
  void conditionAndMissingDocumentAreNotMatched() {
    accounts.insertOne(new Document("_id", "a").append("balance", 10L));
    assertThat(guard.apply(accounts, "a", gte("balance", 50L), Updates.inc("balance", -50L),
        "op-1")).isEqualTo(OpResult.NOT_MATCHED);
    assertThat(guard.apply(accounts, "nobody", Updates.inc("balance", 1L), "op-2"))
        .isEqualTo(OpResult.NOT_MATCHED);
    assertThat(balance()).isEqualTo(10L);
    assertThat(accounts.countDocuments()).isEqualTo(1);
  }

  @Test
  void keepsOnlyTheLastOperationIds() {
    accounts.insertOne(new Document("_id", "a").append("balance", 0L));
    for (int i = 1; i <= 5; i++) {
      guard.apply(accounts, "a", Updates.inc("balance", 1L), "op-" + i);
    }
    assertThat(accounts.find().first().getList("_ops", String.class))
        .containsExactly("op-3", "op-4", "op-5");
    // The documented limit: an id older than `keep` operations is forgotten.
    assertThat(guard.apply(accounts, "a", Updates.inc("balance", 1L), "op-1"))
        .isEqualTo(OpResult.APPLIED);
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void concurrentRetriesOfTheSameOperationApplyOnce() throws Exception {
    accounts.insertOne(new Document("_id", "a").append("balance", 0L));
    OperationIdGuard wide = OperationIdGuard.builder().keep(1000).build();
    int threads = 8;
    int ops = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Integer>> applied = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      applied.add(pool.submit(() -> {
        start.await();
        int mine = 0;
        for (int op = 0; op < ops; op++) { // every thread "retries" every operation
          if (wide.apply(accounts, "a", Updates.inc("balance", 1L), "op-" + op)
              == OpResult.APPLIED) {
            mine++;
          }
        }
        return mine;
      }));
    }
    int total = 0;
    for (Future<Integer> f : applied) {
      total += f.get(20, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(total).isEqualTo(ops);
    assertThat(balance()).isEqualTo(ops);
  }

  @Test
  void rejectsUpdatesThatWriteTheOpsFieldOrReplaceTheDocument() {
    assertThatThrownBy(() -> guard.apply(accounts, "a", Updates.unset("_ops"), "op"))
        .hasMessageContaining("$unset writes '_ops'");
    assertThatThrownBy(() -> guard.apply(accounts, "a", Updates.set("_ops.0", "x"), "op"))
        .hasMessageContaining("writes '_ops.0'");
    assertThatThrownBy(() -> guard.apply(accounts, "a", new Document("balance", 1), "op"))
        .hasMessageContaining("not a replacement document; found field 'balance'");
    assertThatThrownBy(() -> guard.apply(accounts, "a", Updates.inc("balance", 1), " "))
        .hasMessage("opId must not be blank, was ' '");
    assertThatThrownBy(() -> OperationIdGuard.builder().keep(0))
        .hasMessage("keep must be >= 1, was 0");
    assertThatThrownBy(() -> OperationIdGuard.builder().field("$ops"))
        .hasMessage("field must be a plain top-level field name, was '$ops'");
  }
}
