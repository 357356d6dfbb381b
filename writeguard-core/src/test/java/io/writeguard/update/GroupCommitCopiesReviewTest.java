package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.codecs.BsonTypeClassMap;
import org.bson.codecs.DocumentCodecProvider;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of the per-caller copies of a group-commit round (one map of decoded values updated
 * in place) against the oracle that needs no knowledge of them: the same mutators run one at a
 * time with group commit off, where each one gets the store's own decoding of the stored
 * document. In one round: a replacement that drops a field, the dropped field set again and
 * then set to null, a field removed and added again with another value, nested documents
 * changed by one caller and read by the next, a second replacement built from a caller's own
 * copy; and callers that scribble on every container of their copy (nested documents, lists,
 * dates, byte arrays). Every mutator must see exactly what it sees alone (values, Java
 * classes, key order), every outcome must carry the same document and version, and the stored
 * documents must be identical (in field order too, against MongoDB).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitCopiesReviewTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void copiesAreTheStoresDecodingOfEachStateWithTheDefaultCodecs() throws Exception {
    sameAsOneAtATime(MongoClientSettings.getDefaultCodecRegistry(), "CopiesDefault");
  }

  @Test
  void copiesAreTheStoresDecodingOfEachStateWhenBinariesDecodeToByteArrays() throws Exception {
    CodecRegistry bytes = CodecRegistries.fromRegistries(
        CodecRegistries.fromProviders(new DocumentCodecProvider(
            new BsonTypeClassMap(Map.of(BsonType.BINARY, byte[].class)))),
        MongoClientSettings.getDefaultCodecRegistry());
    sameAsOneAtATime(bytes, "CopiesBytes");
  }

  private void sameAsOneAtATime(CodecRegistry registry, String name) throws Exception {
    MongoDatabase db = TestMongo.freshDatabase(name).withCodecRegistry(registry);
    MongoCollection<Document> grouped = db.getCollection("grouped");
    MongoCollection<Document> alone = db.getCollection("alone");
    for (MongoCollection<Document> docs : List.of(grouped, alone)) {
      VersionedInsert.insertOne(docs, VersionPolicy.defaults(), new Document("_id", "r")
          .append("n", 0L)
          .append("gone", "old")
          .append("owner", new Document("name", "ann").append("tags", List.of("t")))
          .append("when", new Date(1_700_000_000_000L))
          .append("blob", new byte[] {1, 2, 3})
          .append("items", List.of(new Document("x", 1), "s")));
    }
    Mutator first = current -> Mutation.update(Updates.inc("n", 1L));

    // Group commit on: the first caller held in its own batch, the others queued behind it.
    List<String> seenGrouped = new CopyOnWriteArrayList<>();
    AtomicInteger callsGrouped = new AtomicInteger();
    List<Mutator> callers = callers(seenGrouped, callsGrouped);
    VersionedUpdater groupedUpdater = VersionedUpdater.builder(grouped).build();
    assertThat(groupedUpdater.groupCommit()).isTrue();
    HeldBatch held = new HeldBatch(pool, groupedUpdater, "r", first);
    List<Future<UpdateOutcome>> futures = new ArrayList<>();
    for (Mutator m : callers) {
      futures.add(held.queue(m));
    }
    held.release();
    List<String> outcomesGrouped = new ArrayList<>();
    for (Future<UpdateOutcome> f : futures) {
      outcomesGrouped.add(describe(f.get(60, TimeUnit.SECONDS)));
    }
    assertThat(callsGrouped).as("each mutator ran once: one round, nobody split off")
        .hasValue(callers.size());

    // Group commit off: the same mutators one after another, each on the stored document.
    List<String> seenAlone = new ArrayList<>();
    AtomicInteger callsAlone = new AtomicInteger();
    VersionedUpdater aloneUpdater = VersionedUpdater.builder(alone).groupCommit(false).build();
    aloneUpdater.update("r", first);
    List<String> outcomesAlone = new ArrayList<>();
    for (Mutator m : callers(seenAlone, callsAlone)) {
      outcomesAlone.add(describe(aloneUpdater.update("r", m)));
    }

    for (int i = 0; i < callers.size(); i++) {
      assertThat(seenGrouped.get(i)).as("what caller %s saw", i + 1).isEqualTo(seenAlone.get(i));
      assertThat(outcomesGrouped.get(i)).as("caller %s's outcome", i + 1)
          .isEqualTo(outcomesAlone.get(i));
    }
    // The round's write is a replacement of its final document: MongoDB stores its order (as
    // the callers were shown it), the embedded server keeps the order the stored fields had.
    boolean exactOrder = !TestMongo.isEmbedded();
    assertThat(DocumentShapes.describe(grouped.find(eq("_id", "r")).first(), exactOrder))
        .isEqualTo(DocumentShapes.describe(alone.find(eq("_id", "r")).first(), exactOrder));
    Document stored = grouped.find(eq("_id", "r")).first();
    assertThat(stored.getLong("n")).isEqualTo(13L);
    assertThat(stored.getLong("version")).as("seven writers").isEqualTo(7L);
    assertThat(stored.get("gone")).isNull();
    assertThat(stored.get("owner", Document.class).getString("name")).isEqualTo("bob");
  }

  /** The queued callers, in order; each records what it saw before it changes its copy. */
  private static List<Mutator> callers(List<String> seen, AtomicInteger calls) {
    return List.of(
        // 1: a new document for a replacement, without "gone". (Its fields keep the stored
        // order: the embedded server keeps a replaced document's order, MongoDB and the round
        // take the replacement's, so another order would compare the test server's quirk.)
        current -> {
          see(seen, calls, current);
          return Mutation.replace(new Document("n", current.getLong("n") + 1)
              .append("owner", current.get("owner"))
              .append("when", current.get("when"))
              .append("blob", current.get("blob"))
              .append("items", current.get("items"))
              .append("version", current.get("version")));
        },
        // 2: "gone" set again; nested changes the next callers read.
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.update(Updates.combine(Updates.set("gone", "back"),
              Updates.inc("n", 1L), Updates.set("owner.name", "bob"),
              Updates.push("owner.tags", "u")));
        },
        // 3: a value that becomes null.
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.update(Updates.set("gone", null));
        },
        // 4: a replacement built from its own copy, which must hold no other caller's scribbles.
        current -> {
          see(seen, calls, current);
          current.put("n", current.getLong("n") + 10);
          current.getList("items", Object.class).add("from-4");
          return Mutation.replace(current);
        },
        // 5: decides on the unsaved state, writes nothing.
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.none();
        },
        // 6: removes "blob".
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.update(Updates.combine(Updates.push("items", new Document("x", 3)),
              Updates.unset("blob")));
        },
        // 7: adds "blob" again with another value.
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.update(Updates.set("blob", new byte[] {7, 7}));
        },
        // 8: reads it all.
        current -> {
          see(seen, calls, current);
          scribble(current);
          return Mutation.none();
        });
  }

  private static void see(List<String> seen, AtomicInteger calls, Document current) {
    calls.incrementAndGet();
    seen.add(DocumentShapes.describe(current));
  }

  /** Changes every container of a caller's copy that it can reach. */
  private static void scribble(Document current) {
    Document owner = current.get("owner", Document.class);
    owner.put("name", "mallory");
    owner.getList("tags", Object.class).add("x");
    List<Object> items = current.getList("items", Object.class);
    ((Document) items.get(0)).put("x", 99);
    items.add("junk");
    current.getDate("when").setTime(0);
    if (current.get("blob") instanceof byte[] bytes) {
      bytes[0] = 9;
    }
    current.put("n", -1L);
    current.put("added", "by a scribbler");
  }

  private static String describe(UpdateOutcome outcome) {
    return "version " + outcome.version() + " written " + outcome.written() + " "
        + outcome.document().map(DocumentShapes::describe).orElse("none");
  }
}
