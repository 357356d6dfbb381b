package io.writeguard.tx;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** The runner against the server under test: refusal on the embedded one, a transfer on a replica set. */
class TransactionRunnerServerTest {

  @Test
  void refusesOnTheEmbeddedServerWithoutRunningTheBody() {
    assumeTrue(TestMongo.isEmbedded(), "needs the embedded (standalone) server");
    MongoCollection<Document> accounts =
        TestMongo.freshDatabase("TxRefuse").getCollection("accounts");
    AtomicInteger bodyRuns = new AtomicInteger();
    TransactionRunner runner = TransactionRunner.builder(TestMongo.client()).build();

    assertThat(runner.transactionsSupported()).isFalse();
    assertThatThrownBy(() -> runner.run(session -> {
      bodyRuns.incrementAndGet();
      accounts.insertOne(session, new Document("_id", "a"));
      return null;
    }))
        .isInstanceOf(TransactionsUnsupportedException.class)
        .hasMessageContaining("STANDALONE")
        .hasMessageContaining("replica set")
        .hasMessageContaining("nothing was executed");
    assertThat(bodyRuns).hasValue(0);
    assertThat(accounts.countDocuments()).isZero();
  }

  @Test
  void transfersBetweenTwoAccountsOnAReplicaSet() {
    TransactionRunner runner = TransactionRunner.builder(TestMongo.client()).build();
    assumeTrue(runner.transactionsSupported(), "the server under test cannot run transactions");
    MongoCollection<Document> accounts =
        TestMongo.freshDatabase("TxTransfer").getCollection("accounts");
    accounts.insertOne(new Document("_id", "a").append("balance", 100L));
    accounts.insertOne(new Document("_id", "b").append("balance", 0L));

    runner.run(session -> {
      accounts.updateOne(session, eq("_id", "a"), Updates.inc("balance", -30L));
      accounts.updateOne(session, eq("_id", "b"), Updates.inc("balance", 30L));
      return null;
    });
    assertThatThrownBy(() -> runner.run(session -> {
      accounts.updateOne(session, eq("_id", "a"), Updates.inc("balance", -500L));
      throw new IllegalStateException("would overdraw");
    })).hasMessage("would overdraw");

    assertThat(accounts.find(eq("_id", "a")).first().getLong("balance")).isEqualTo(70L);
    assertThat(accounts.find(eq("_id", "b")).first().getLong("balance")).isEqualTo(30L);
  }
}
