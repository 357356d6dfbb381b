package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.ValidationOptions;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The updater against a real server (embedded unless MONGODB_URI is set). */
class VersionedUpdaterMongoTest {
  private MongoDatabase db;
  private MongoCollection<Document> docs;
  private VersionedUpdater updater;
  private final RecordingListener listener = new RecordingListener();

  @BeforeEach
  void setUp() {
    db = TestMongo.freshDatabase("VersionedUpdater");
    docs = db.getCollection("docs");
    updater = VersionedUpdater.builder(docs)
        .listener(listener)
        .retryPolicy(RetryPolicy.builder().maxAttempts(5)
            .backoff(Duration.ZERO, Duration.ZERO).build())
        .build();
  }

  private BsonDocument stored(Object id) {
    return docs.withDocumentClass(BsonDocument.class).find(eq("_id", id)).first();
  }

  private void insert(Document doc) {
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(), doc);
  }

  @Test
  void returnsTheDocumentAsWrittenWithAnInt64Version() {
    insert(new Document("_id", "a").append("count", 1));
    UpdateOutcome outcome = updater.update("a",
        current -> Mutation.update(Updates.set("count", current.getInteger("count") + 1)));
    assertThat(outcome.version()).isEqualTo(1);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(outcome.document()).get().satisfies(d -> {
      assertThat(d.get("count")).isEqualTo(2);
      assertThat(d.get("version")).isEqualTo(1L);
    });
    BsonDocument stored = stored("a");
    assertThat(stored.get("version").getBsonType()).isEqualTo(BsonType.INT64);
    assertThat(stored.getInt64("version").getValue()).isEqualTo(1);
    assertThat(updater.scope().collection()).isEqualTo("docs");
    assertThat(updater.scope().strategy()).isEqualTo("optimistic");
  }

  @Test
  void aWriterThatGetsInFirstCausesOneRetryAndBothChangesSurvive() {
    insert(new Document("_id", "a").append("tags", List.of()));
    AtomicInteger calls = new AtomicInteger();
    UpdateOutcome outcome = updater.update("a", current -> {
      if (calls.incrementAndGet() == 1) {
        // Another request writes between our read and our write.
        updater.update("a", inner -> Mutation.update(Updates.push("tags", "theirs")));
      }
      return Mutation.update(Updates.push("tags", "ours"));
    });
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(outcome.version()).isEqualTo(2);
    assertThat(stored("a").getArray("tags")).hasSize(2);
    assertThat(outcome.document().orElseThrow().getList("tags", String.class))
        .containsExactly("theirs", "ours");
    assertThat(listener.events).contains("conflict 1", "retry 1", "success 2");
  }

  @Test
  void theUpdateOnePathUsesMatchedCountAsTheConflictSignal() {
    insert(new Document("_id", "a").append("n", 0));
    AtomicInteger calls = new AtomicInteger();
    UpdateOutcome outcome = updater.updateOne("a", current -> {
      if (calls.incrementAndGet() == 1) {
        docs.updateOne(eq("_id", "a"), Updates.inc("version", 1L)); // a raw, unguarded writer
      }
      // Sets a value the field already has: modifiedCount would say nothing changed.
      return Mutation.update(Updates.set("n", 0));
    });
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(outcome.document()).isEmpty();
    assertThat(outcome.version()).isEqualTo(2);
    assertThat(stored("a").getInt64("version").getValue()).isEqualTo(2);
  }

  @Test
  void aReplacementRemovesWhatTheMutatorRemoved() {
    insert(new Document("_id", "a").append("keep", 1).append("drop", 2));
    UpdateOutcome outcome = updater.update("a", current -> {
      current.remove("drop");
      current.put("added", 3);
      return Mutation.replace(current);
    });
    assertThat(outcome.version()).isEqualTo(1);
    assertThat(stored("a")).isEqualTo(BsonDocument.parse(
        "{_id: 'a', keep: 1, version: {$numberLong: '1'}, added: 3}"));
    UpdateOutcome viaReplaceOne = updater.updateOne("a",
        current -> Mutation.replace(new Document("only", true)));
    assertThat(viaReplaceOne.version()).isEqualTo(2);
    assertThat(stored("a")).isEqualTo(BsonDocument.parse(
        "{_id: 'a', only: true, version: {$numberLong: '2'}}"));
  }

  @Test
  void aDocumentThatDoesNotExistIsNotFound() {
    assertThatThrownBy(() -> updater.update("nope", c -> Mutation.update(Updates.set("x", 1))))
        .isInstanceOf(DocumentNotFoundException.class)
        .hasMessageContaining("update of docs _id=nope found no document with that _id");
  }

  @Test
  void aDocumentDeletedBetweenReadAndWriteIsNotFoundNotAConflict() {
    insert(new Document("_id", "a"));
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> updater.update("a", current -> {
      calls.incrementAndGet();
      docs.deleteOne(eq("_id", "a")); // another client deletes it
      return Mutation.update(Updates.set("x", 1));
    }))
        .isInstanceOfSatisfying(DocumentNotFoundException.class,
            e -> assertThat(e.attempts()).isEqualTo(1))
        .hasMessageContaining("deleted after it was read");
    assertThat(calls).hasValue(1);
    assertThat(docs.countDocuments()).isZero();
    assertThat(listener.events).doesNotContain("conflict 1");
  }

  @Test
  void aDuplicateKeyIsNotRetriedAndLeavesEverythingAsItWas() {
    docs.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
    insert(new Document("_id", "a").append("email", "a@x"));
    insert(new Document("_id", "b").append("email", "b@x"));
    Document mine = new Document("_id", "b").append("email", "a@x");
    Document copyOfMine = new Document(mine);
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> updater.update("b", current -> {
      calls.incrementAndGet();
      return Mutation.replace(mine);
    }))
        .isInstanceOf(DuplicateKeyWriteException.class)
        .hasMessageContaining("update of docs _id=b would duplicate a unique key")
        .hasMessageContaining("1 attempt,")
        .hasCauseInstanceOf(com.mongodb.MongoException.class);
    assertThatThrownBy(() -> updater.updateOne("b",
            current -> Mutation.update(Updates.set("email", "a@x"))))
        .isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(calls).hasValue(1);
    assertThat(mine).isEqualTo(copyOfMine); // the caller's document is untouched
    assertThat(stored("b")).isEqualTo(BsonDocument.parse(
        "{_id: 'b', email: 'b@x', version: {$numberLong: '0'}}"));
  }

  @Test
  void aValidatorRejectionIsTypedAndNotRetried() {
    assumeFalse(TestMongo.isEmbedded(), "the embedded server ignores validators");
    db.createCollection("validated", new CreateCollectionOptions().validationOptions(
        new ValidationOptions().validator(Filters.gte("qty", 0))));
    MongoCollection<Document> validated = db.getCollection("validated");
    VersionedInsert.insertOne(validated, VersionPolicy.defaults(),
        new Document("_id", 1).append("qty", 1));
    assertThatThrownBy(() -> VersionedUpdater.builder(validated).build()
            .update(1, c -> Mutation.update(Updates.set("qty", -1))))
        .isInstanceOf(DocumentValidationException.class);
  }

  @Test
  void aLegacyDocumentIsAdoptedOnItsFirstWrite() {
    docs.insertOne(new Document("_id", "old").append("n", 1));
    UpdateOutcome outcome = updater.update("old",
        current -> Mutation.update(Updates.set("n", current.getInteger("n") + 1)));
    assertThat(outcome.version()).isEqualTo(1);
    BsonDocument stored = stored("old");
    assertThat(stored.get("version").getBsonType()).isEqualTo(BsonType.INT64);
    assertThat(stored.getInt64("version").getValue()).isEqualTo(1);
    assertThat(stored.getInt32("n").getValue()).isEqualTo(2);
  }

  @Test
  void aLegacyDocumentAdoptedByAnotherWriterMeanwhileIsAConflict() {
    docs.insertOne(new Document("_id", "old").append("n", 1));
    AtomicInteger calls = new AtomicInteger();
    UpdateOutcome outcome = updater.update("old", current -> {
      if (calls.incrementAndGet() == 1) {
        updater.update("old", inner -> Mutation.update(Updates.inc("n", 10)));
      }
      return Mutation.update(Updates.set("n", current.getInteger("n") + 1));
    });
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(outcome.version()).isEqualTo(2);
    assertThat(stored("old").getInt32("n").getValue()).isEqualTo(12);
  }

  @Test
  void aLegacyDocumentIsRefusedWhenThePolicySaysSo() {
    docs.insertOne(new Document("_id", "old").append("n", 1));
    VersionedUpdater strict = VersionedUpdater.builder(docs).versionPolicy(VersionPolicy.builder()
        .missingVersion(VersionPolicy.MissingVersion.REFUSE).build()).build();
    assertThatThrownBy(() -> strict.update("old", c -> Mutation.update(Updates.set("n", 2))))
        .isInstanceOf(InvalidVersionException.class)
        .hasMessageContaining("_id=old")
        .hasMessageContaining("refuses legacy documents");
    assertThat(stored("old")).isEqualTo(BsonDocument.parse("{_id: 'old', n: 1}"));
  }

  @Test
  void unusableStoredVersionsAreRefusedAndNothingIsWritten() {
    docs.insertOne(new Document("_id", "s").append("version", "10"));
    docs.insertOne(new Document("_id", "n").append("version", null));
    docs.insertOne(new Document("_id", "d").append("version", 3.0));
    assertThatThrownBy(() -> updater.update("s", c -> Mutation.update(Updates.set("x", 1))))
        .isInstanceOf(InvalidVersionException.class).hasMessageContaining("string \"10\"");
    assertThatThrownBy(() -> updater.update("n", c -> Mutation.update(Updates.set("x", 1))))
        .isInstanceOf(InvalidVersionException.class).hasMessageContaining("it is null");
    assertThatThrownBy(() -> updater.update("d", c -> Mutation.update(Updates.set("x", 1))))
        .isInstanceOf(InvalidVersionException.class).hasMessageContaining("double 3.0");
    assertThat(docs.countDocuments(Filters.exists("x"))).isZero();
  }

  @Test
  void anInt32VersionIsAcceptedAndComparedByValue() {
    docs.insertOne(new Document("_id", "i").append("version", 4));
    UpdateOutcome outcome = updater.update("i", c -> Mutation.update(Updates.set("x", 1)));
    assertThat(outcome.version()).isEqualTo(5);
    assertThat(stored("i").getNumber("version").longValue()).isEqualTo(5);
  }

  @Test
  void guardRejectionsNameTheOperatorAndPathAndWriteNothing() {
    insert(new Document("_id", "a"));
    assertThatThrownBy(() -> updater.update("a",
            c -> Mutation.update(Updates.combine(Updates.set("x", 1), Updates.set("version", 7L)))))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("$set touches 'version'");
    assertThatThrownBy(() -> updater.update("a",
            c -> Mutation.update(Updates.unset("version.sub"))))
        .hasMessageStartingWith("$unset touches 'version.sub'");
    assertThatThrownBy(() -> updater.update("a",
            c -> Mutation.update(Updates.rename("x", "version"))))
        .hasMessageStartingWith("$rename touches 'version'");
    assertThat(stored("a")).isEqualTo(BsonDocument.parse(
        "{_id: 'a', version: {$numberLong: '0'}}"));
    assertThat(listener.events).contains("failure VersionFieldException");
  }

  @Test
  void refusesAnUnacknowledgedWriteConcern() {
    assertThatThrownBy(() -> VersionedUpdater.builder(docs.withWriteConcern(WriteConcern.UNACKNOWLEDGED)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("write concern must be acknowledged");
  }
}
