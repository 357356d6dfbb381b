package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import org.bson.Document;
import org.junit.jupiter.api.Test;

class DeadlineTest {

  @Test
  void aBoundedOperationWorksOnTheServerUnderTest() {
    // The driver sends maxTimeMS with every bounded command: the server must accept it.
    MongoCollection<Document> docs = TestMongo.freshDatabase("DeadlineTest").getCollection("d");
    docs.insertOne(new Document("_id", 1).append("n", 0));
    Deadline.within(Deadline.after(Duration.ofSeconds(20)), () -> {
      Deadline.boundedWrite(docs).updateOne(Filters.eq("_id", 1), Updates.inc("n", 1));
      Deadline.boundedWrite(docs).findOneAndUpdate(Filters.eq("_id", 1), Updates.inc("n", 1));
      assertThat(Deadline.bounded(docs).find(Filters.eq("_id", 1)).first().getInteger("n"))
          .isEqualTo(2);
    });
  }

  @Test
  void aReadOnAStalledServerEndsAtTheDeadline() {
    try (StallingProxy proxy = StallingProxy.forTestMongo(); MongoClient client = proxy.mongoClient()) {
      MongoCollection<Document> docs = client.getDatabase("wg_DeadlineStall").getCollection("d");
      docs.find().first(); // connected
      proxy.stall();
      long start = System.nanoTime();
      assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
          () -> Deadline.bounded(docs).find(Filters.eq("_id", 1)).first()))
          .isInstanceOf(MongoOperationTimeoutException.class);
      // The client's own timeouts are 60 s: only the deadline can have ended it.
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
    }
  }

  @Test
  void aWriteOnAStalledServerEndsAtTheDeadlinePlusTheGrace() {
    try (StallingProxy proxy = StallingProxy.forTestMongo(); MongoClient client = proxy.mongoClient()) {
      MongoCollection<Document> docs = client.getDatabase("wg_DeadlineStall").getCollection("w");
      docs.find().first();
      proxy.stall();
      long start = System.nanoTime();
      assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
          () -> Deadline.boundedWrite(docs).updateOne(Filters.eq("_id", 1), Updates.inc("n", 1))))
          .isInstanceOf(MongoOperationTimeoutException.class);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
          .isLessThan(Duration.ofSeconds(1).plus(Deadline.OUTCOME_GRACE).plusMillis(1500));
    }
  }

  @Test
  void aNestedDeadlineCanShortenACallButNeverLengthenIt() {
    Deadline outer = Deadline.after(Duration.ofSeconds(1));
    Deadline.within(outer, () -> {
      Deadline.within(Deadline.after(Duration.ofHours(1)), () ->
          assertThat(Deadline.current()).isSameAs(outer));
      Deadline inner = Deadline.after(Duration.ofMillis(10));
      Deadline.within(inner, () -> assertThat(Deadline.current()).isSameAs(inner));
      assertThat(Deadline.current()).isSameAs(outer);
    });
    assertThat(Deadline.current()).isNull();
  }

  @Test
  void enterAndRestoreNestAsWithinDoes() {
    Deadline outer = Deadline.after(Duration.ofSeconds(1));
    Deadline none = Deadline.enter(outer);
    assertThat(none).isNull();
    assertThat(Deadline.current()).isSameAs(outer);
    Deadline was = Deadline.enter(Deadline.after(Duration.ofHours(1)));
    assertThat(Deadline.current()).as("never lengthened").isSameAs(outer);
    Deadline.restore(was);
    Deadline inner = Deadline.after(Duration.ofMillis(10));
    was = Deadline.enter(inner);
    assertThat(Deadline.current()).as("shortened").isSameAs(inner);
    Deadline.restore(was);
    assertThat(Deadline.current()).isSameAs(outer);
    Deadline.restore(none);
    assertThat(Deadline.current()).isNull();
    assertThatThrownBy(() -> Deadline.enter(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void noDeadlineLeavesTheCollectionAndTheCommandTimeoutAsTheyAre() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("DeadlineTest").getCollection("n");
    assertThat(Deadline.bounded(docs)).isSameAs(docs);
    assertThat(Deadline.commandTimeout(Duration.ofSeconds(5), true)).isEqualTo(Duration.ofSeconds(5));
    Deadline.within(Deadline.after(Duration.ofMillis(-5)), () -> {
      assertThat(Deadline.commandTimeout(Duration.ofSeconds(5), false)).isEqualTo(Duration.ofMillis(1));
      assertThat(Deadline.commandTimeout(Duration.ofSeconds(5), true))
          .isBetween(Duration.ofMillis(1), Deadline.OUTCOME_GRACE);
    });
  }
}
