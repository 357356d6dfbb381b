package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The nastiest moment for a foreign writer (one that does not use WriteGuard and does not raise
 * the version): between a group-commit round's read and its write. One caller's mutator makes
 * that write itself, so it lands there every time. For each operator family, under
 * {@link VersionedUpdater} and {@link LockedUpdater}, the document must end exactly (values,
 * types, field order, version) as the foreign write followed by each caller's update sent
 * alone would leave it; and the round's callers must have been one batch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForeignWriterInsideRoundTest {
  private static final JsonWriterSettings EXACT =
      JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("ForeignInside").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Integer> batches = new CopyOnWriteArrayList<>();
  private final WriteGuardListener listener = new WriteGuardListener() {
    @Override
    public void onBatch(OperationScope scope, Object key, int size) {
      batches.add(size);
    }
  };

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** A family: the document, the callers' mutators in order, the foreign write. */
  record Family(String name, String document, List<Mutator> callers, String foreign) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Mutator op(Bson update) {
    return current -> Mutation.update(update);
  }

  static Stream<Arguments> families() {
    List<Family> families = List.of(
        new Family("$inc", "{n: 0, legacy: []}",
            List.of(op(Updates.inc("n", 1L)), op(Updates.inc("n", 1L)), op(Updates.inc("n", 2L))),
            "{$inc: {n: 1}, $push: {legacy: 'f'}}"),
        new Family("$push", "{log: ['x'], other: 0}",
            List.of(op(Updates.push("log", "a")), op(Updates.push("log", "b")),
                op(Updates.pushEach("log", List.of("c", "d")))),
            "{$push: {log: 'f'}, $set: {other: 1}}"),
        new Family("$addToSet", "{tags: [1]}",
            List.of(op(Updates.addToSet("tags", 2)), op(Updates.addToSet("tags", 1)),
                op(Updates.addToSet("tags", 3))),
            "{$push: {tags: 3}}"),
        new Family("$set", "{a: 0, b: 0, n: 0}",
            List.of(op(Updates.set("a", 1)), op(Updates.set("a", 2)),
                op(Updates.combine(Updates.inc("a", 5), Updates.set("sub", new Document("x", 1))))),
            "{$set: {b: 'f'}, $inc: {n: 7}}"),
        new Family("$min/$max", "{low: 10, high: 0}",
            List.of(op(Updates.min("low", 5)), op(Updates.min("low", 3)),
                op(Updates.max("high", 9)), op(Updates.max("high", 4))),
            "{$set: {low: 1, high: 20}}"),
        new Family("$unset", "{x: 1, y: 2, z: 3}",
            List.of(op(Updates.unset("x")), op(Updates.unset("y")), op(Updates.set("w", 4))),
            "{$set: {z: 'f'}, $unset: {w: ''}}"),
        new Family("mixed", "{n: 0, log: [], status: 'new', legacy: []}",
            List.of(op(Updates.inc("n", 1L)), op(Updates.push("log", "a")),
                op(Updates.set("status", "paid")), op(Updates.inc("n", 1L))),
            "{$inc: {n: 1}, $push: {legacy: 1}, $set: {note: 'f'}}"),
        new Family("replacement first", "{n: 1, legacy: []}",
            List.of(current -> {
              Document replacement = new Document(current);
              replacement.put("n", 100);
              replacement.put("tag", "r");
              return Mutation.replace(replacement);
            }, op(Updates.inc("n", 1))),
            "{$push: {legacy: 'f'}, $set: {other: 1}}"));
    List<Arguments> all = new ArrayList<>();
    for (Family f : families) {
      all.add(Arguments.of(f, "versioned"));
      all.add(Arguments.of(f, "locked"));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} under {1}")
  @MethodSource("families")
  void aForeignWriteBetweenTheRoundsReadAndWriteIsKept(Family family, String updaterKind)
      throws Exception {
    String id = "d";
    insert(id, family.document());
    Function<Mutator, UpdateOutcome> update;
    java.util.function.IntSupplier waiting;
    if (updaterKind.equals("versioned")) {
      VersionedUpdater updater = VersionedUpdater.builder(docs).listener(listener).build();
      update = m -> updater.update(id, m);
      waiting = () -> updater.waiting(id);
    } else {
      LockedUpdater updater =
          LockedUpdater.builder(docs, LocalLockService.create()).listener(listener).build();
      update = m -> updater.update(id, m);
      waiting = () -> updater.waiting(id);
    }
    LockedTesting.HeldBatch held =
        new LockedTesting.HeldBatch(pool, update, waiting, current -> Mutation.none());
    List<Future<UpdateOutcome>> queued = new ArrayList<>();
    BsonDocument foreign = BsonDocument.parse(family.foreign());
    for (int i = 0; i < family.callers().size(); i++) {
      Mutator mutator = family.callers().get(i);
      if (i == 1) { // the second caller's mutator writes as a foreign writer, then decides
        Mutator inner = mutator;
        mutator = current -> {
          docs.updateOne(eq("_id", id), foreign);
          return inner.mutate(current);
        };
      }
      queued.add(held.queue(mutator));
    }
    held.release();
    for (Future<UpdateOutcome> f : queued) {
      assertThat(f.get(60, TimeUnit.SECONDS).written()).isTrue();
    }
    assertThat(batches).as("the callers ran as one batch").contains(family.callers().size());

    // The same changes, each sent alone after the foreign write.
    String lone = "lone";
    insert(lone, family.document());
    // Read before the foreign write, as the round's callers were: a replacement decided on it
    // erases the foreign write alone too (the version filter cannot see it).
    Document readBefore = docs.find(eq("_id", lone)).first();
    docs.updateOne(eq("_id", lone), foreign);
    for (Mutator m : family.callers()) {
      Document current = docs.find(eq("_id", lone)).first();
      long version = current.getLong("version");
      Mutation mutation = m.mutate(new Document(m == family.callers().get(0) ? readBefore : current));
      if (mutation instanceof Mutation.Replace r) {
        Document replacement = new Document(r.replacement());
        replacement.put("_id", lone);
        replacement.put("version", version + 1);
        docs.replaceOne(eq("_id", lone), replacement);
      } else {
        BsonDocument u = ((Mutation.Update) mutation).update()
            .toBsonDocument(BsonDocument.class, docs.getCodecRegistry()).clone();
        BsonDocument inc = u.containsKey("$inc") ? u.getDocument("$inc") : new BsonDocument();
        inc.put("version", new BsonInt64(1));
        u.put("$inc", inc);
        docs.updateOne(eq("_id", lone), u);
      }
    }
    // A lock's claims raise the version and leave a fence; everything else must be identical.
    boolean locked = updaterKind.equals("locked");
    assertThat(exact(id, locked)).isEqualTo(exact(lone, locked));
  }

  private void insert(String id, String json) {
    Document doc = new Document("_id", id);
    doc.putAll(Document.parse(json));
    doc.put("version", 0L);
    docs.insertOne(doc);
  }

  private String exact(String id, boolean withoutVersionAndFence) {
    BsonDocument doc = docs.withDocumentClass(BsonDocument.class).find(eq("_id", id)).first();
    doc.remove("_id");
    if (withoutVersionAndFence) {
      doc.remove("version");
      doc.remove("_fence");
    }
    return doc.toJson(EXACT);
  }
}
