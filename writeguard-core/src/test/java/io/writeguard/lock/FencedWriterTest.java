package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodecProvider;
import org.bson.codecs.ValueCodecProvider;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.codecs.configuration.CodecRegistries;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Fencing enforced by MongoDB: a holder whose lease expired is refused by the server itself. */
class FencedWriterTest {
  private final MongoDatabase db = TestMongo.freshDatabase("Fencing");
  private final MongoCollection<Document> data = db.getCollection("docs");
  private final List<Long> rejections = new CopyOnWriteArrayList<>();
  private final FencedWriter writer = FencedWriter.builder(data).strategy("test")
      .listener(new WriteGuardListener() {
        @Override
        public void onFencedRejection(OperationScope scope, Object key, long token) {
          rejections.add(token);
        }
      }).build();
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
   * The holder pauses past its lease (its own clock is frozen, as in a long GC pause, so it
   * still believes it holds the lock), another owner takes over and writes; the paused holder's
   * write then matches nothing in MongoDB and the document keeps the newer write.
   */
  @Test
  void aPausedHolderWhoseLeaseExpiredIsRefusedByMongoDb() throws Exception {
    data.insertOne(new Document("_id", "doc").append("value", "initial"));
    FakeTime frozen = new FakeTime();
    MongoLeaseLockService paused = service(MongoLeaseLockService.builder(db, "locks")
        .lease(Duration.ofMillis(200)).noRenewal().ticker(frozen.ticker()));
    MongoLeaseLockService other = service(MongoLeaseLockService.builder(db, "locks").lease(Duration.ofSeconds(10)));

    LockHandle stale = paused.acquire("doc-lock", Duration.ofSeconds(5));
    assertThat(writer.claim(stale, "doc")).hasValueSatisfying(d -> assertThat(d.getString("value")).isEqualTo("initial"));
    Thread.sleep(400); // the "pause": past the lease on the server's clock
    try (LockHandle newer = other.acquire("doc-lock", Duration.ofSeconds(5))) {
      assertThat(newer.token()).isGreaterThan(stale.token());
      assertThat(writer.updateOne(newer, "doc", set("value", "newer"))).isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    assertThat(stale.isLost()).as("the paused holder has not noticed").isFalse();

    // Raw helpers: MongoDB matches nothing.
    long matched = data.updateOne(Fencing.fencedFilter(eq("_id", "doc"), stale.token()),
        Fencing.fencedUpdate(set("value", "stale"), stale.token())).getMatchedCount();
    assertThat(matched).isZero();
    // The writer says why, with a typed error, and tells the listener.
    assertThatThrownBy(() -> writer.updateOne(stale, "doc", set("value", "stale")))
        .isInstanceOf(StaleLockException.class)
        .hasMessageContaining("_id=doc").hasMessageContaining("token " + stale.token());
    assertThat(rejections).containsExactly(stale.token());
    Document stored = data.find(eq("_id", "doc")).first();
    assertThat(stored.getString("value")).isEqualTo("newer");
    assertThat(stored.getLong(Fencing.FIELD)).isGreaterThan(stale.token());
    stale.close();
  }

  @Test
  void aClaimRefusesTheOldHolderEvenBeforeTheNewHolderWrites() {
    data.insertOne(new Document("_id", "d").append("n", 0));
    LockHandle older = new FixedHandle("k", 5);
    LockHandle newer = new FixedHandle("k", 6);
    assertThat(writer.claim(newer, "d")).isPresent();
    assertThatThrownBy(() -> writer.updateOne(older, "d", inc("n", 1))).isInstanceOf(StaleLockException.class);
    assertThat(data.find().first().getInteger("n")).isZero();
    assertThat(writer.updateOne(newer, "d", inc("n", 1))).isEqualTo(FencedWriter.Outcome.APPLIED);
  }

  @Test
  void aMissIsToldApartFromNotFoundAndFromAFilterThatDidNotMatch() {
    data.insertOne(new Document("_id", 1).append("state", "open"));
    LockHandle lock = new FixedHandle("k", 3);
    assertThat(writer.updateOne(lock, 2, set("x", 1))).isEqualTo(FencedWriter.Outcome.NOT_FOUND);
    assertThat(writer.updateOne(lock, 1, eq("state", "closed"), set("x", 1)))
        .isEqualTo(FencedWriter.Outcome.FILTER_NOT_MATCHED);
    assertThat(writer.updateOne(lock, 1, eq("state", "open"), set("x", 1))).isEqualTo(FencedWriter.Outcome.APPLIED);
    assertThat(writer.claim(lock, 2)).isEmpty();
    assertThat(writer.findOneAndUpdate(lock, 2, set("x", 1))).isEmpty();
    assertThat(writer.replaceOne(lock, 2, new Document("x", 1))).isEqualTo(FencedWriter.Outcome.NOT_FOUND);
    assertThat(rejections).isEmpty();
    assertThat(data.countDocuments()).isEqualTo(1);
  }

  @Test
  void aReplacementCarriesTheFenceAndAStaleOneIsRefused() {
    data.insertOne(new Document("_id", "r").append("v", 1));
    assertThat(writer.replaceOne(new FixedHandle("k", 10), "r", new Document("v", 2)))
        .isEqualTo(FencedWriter.Outcome.APPLIED);
    assertThat(data.find().first()).containsEntry("v", 2).containsEntry(Fencing.FIELD, 10L);
    assertThatThrownBy(() -> writer.replaceOne(new FixedHandle("k", 9), "r", new Document("v", 3)))
        .isInstanceOf(StaleLockException.class);
    assertThatThrownBy(() -> writer.replaceOne(new FixedHandle("k", 11), "r", new Document("_id", "other")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other");
    assertThat(data.find().first()).containsEntry("v", 2);
  }

  @Test
  void aReplacementWithAFilterReplacesOnlyWhenItMatches() {
    data.insertOne(new Document("_id", "r").append("version", 4L));
    LockHandle lock = new FixedHandle("k", 10);
    assertThat(writer.replaceOne(lock, "r", eq("version", 3L), new Document("version", 5L)))
        .isEqualTo(FencedWriter.Outcome.FILTER_NOT_MATCHED);
    assertThat(data.find().first()).containsEntry("version", 4L).doesNotContainKey(Fencing.FIELD);
    assertThat(writer.replaceOne(lock, "r", eq("version", 4L), new Document("version", 5L)))
        .isEqualTo(FencedWriter.Outcome.APPLIED);
    assertThat(data.find().first()).containsEntry("version", 5L).containsEntry(Fencing.FIELD, 10L);
    assertThat(writer.replaceOne(lock, "gone", eq("version", 5L), new Document("version", 6L)))
        .isEqualTo(FencedWriter.Outcome.NOT_FOUND);
    assertThatThrownBy(() -> writer.replaceOne(new FixedHandle("k", 9), "r", eq("version", 5L),
        new Document("version", 6L))).isInstanceOf(StaleLockException.class);
    assertThat(data.find().first()).containsEntry("version", 5L);
  }

  /**
   * The raw form sends what the decoded one sends and answers the same document as its bytes:
   * applied and fenced, empty on a miss, stale for an older token (nothing written).
   */
  @Test
  void theRawFindOneAndUpdateIsTheDecodedOneAsBytes() {
    data.insertOne(new Document("_id", "w").append("n", 1).append("state", "open"));
    LockHandle lock = new FixedHandle("k", 10);
    Document decoded = writer.findOneAndUpdate(lock, "w", eq("state", "open"), inc("n", 1))
        .orElseThrow();
    RawBsonDocument raw = writer.findOneAndUpdateRaw(lock, "w", eq("state", "open"), inc("n", 1))
        .orElseThrow();
    assertThat(decoded).containsEntry("n", 2).containsEntry(Fencing.FIELD, 10L);
    assertThat(raw).isEqualTo(data.withDocumentClass(RawBsonDocument.class).find().first());
    assertThat(raw.getInt32("n").getValue()).isEqualTo(3);
    assertThat(raw.getInt64(Fencing.FIELD).getValue()).isEqualTo(10L);

    assertThat(writer.findOneAndUpdateRaw(lock, "w", eq("state", "closed"), inc("n", 1)))
        .isEmpty();
    assertThat(writer.findOneAndUpdateRaw(lock, "gone", null, inc("n", 1))).isEmpty();
    assertThatThrownBy(() -> writer.findOneAndUpdateRaw(new FixedHandle("k", 9), "w", null,
        inc("n", 1))).isInstanceOf(StaleLockException.class);
    assertThat(rejections).containsExactly(9L);
    assertThat(data.find().first()).containsEntry("n", 3);
  }

  /** A registry made without the driver's defaults still gets raw answers. */
  @Test
  void theRawFormNeedsNoRawCodecInTheCollectionsRegistry() {
    MongoCollection<Document> plain = data.withCodecRegistry(CodecRegistries.fromProviders(
        new ValueCodecProvider(), new DocumentCodecProvider()));
    plain.insertOne(new Document("_id", "p").append("n", 1));
    assertThatThrownBy(() -> plain.getCodecRegistry().get(RawBsonDocument.class))
        .as("the registry has no raw codec").isInstanceOf(CodecConfigurationException.class);
    FencedWriter plainWriter = FencedWriter.of(plain);
    RawBsonDocument raw = plainWriter.findOneAndUpdateRaw(new FixedHandle("k", 4), "p", null,
        inc("n", 1)).orElseThrow();
    assertThat(raw.getInt32("n").getValue()).isEqualTo(2);
  }

  @Test
  void anUpsertInsertsFencedAndAStaleUpsertIsStaleNotADuplicate() {
    writer.upsertOne(new FixedHandle("k", 4), "u", set("v", 1));
    assertThat(data.find().first()).containsEntry("v", 1).containsEntry(Fencing.FIELD, 4L);
    assertThatThrownBy(() -> writer.upsertOne(new FixedHandle("k", 3), "u", set("v", 2)))
        .isInstanceOf(StaleLockException.class);
    writer.upsertOne(new FixedHandle("k", 4), "u", inc("v", 1));
    assertThat(data.find().first()).containsEntry("v", 2);
  }

  @Test
  void aHandleThatKnowsItsLeaseIsLostIsRefusedBeforeAnythingIsSent() {
    data.insertOne(new Document("_id", "l").append("v", 0));
    FixedHandle lost = new FixedHandle("k", 7);
    lost.lost = true;
    assertThatThrownBy(() -> writer.updateOne(lost, "l", set("v", 1)))
        .isInstanceOf(StaleLockException.class).hasMessageContaining("lease of lock 'k'")
        .hasMessageContaining("nothing was written");
    assertThat(rejections).containsExactly(7L);
    assertThat(data.find().first()).containsEntry("v", 0).doesNotContainKey(Fencing.FIELD);
    FixedHandle released = new FixedHandle("k", 8);
    released.released = true;
    assertThatThrownBy(() -> writer.updateOne(released, "l", set("v", 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
  }

  @Test
  void updatesThatWriteTheFenceThemselvesAreRefused() {
    assertThatThrownBy(() -> Fencing.fencedUpdate(set("_fence", 1), 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fence field '_fence'");
    assertThatThrownBy(() -> Fencing.fencedUpdate(new Document("v", 1), 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("update operators");
    assertThatThrownBy(() -> FencedWriter.builder(data).fenceField("a.b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a.b'");
    assertThatThrownBy(() -> FencedWriter.builder(data).fenceField("$x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A handle with a fixed token, for fencing tests that need no lock service. */
  private static final class FixedHandle implements LockHandle {
    private final String key;
    private final long token;
    volatile boolean lost;
    volatile boolean released;

    FixedHandle(String key, long token) {
      this.key = key;
      this.token = token;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public long token() {
      return token;
    }

    @Override
    public boolean isLost() {
      return lost;
    }

    @Override
    public boolean isReleased() {
      return released;
    }

    @Override
    public void close() {
      released = true;
    }
  }
}
