package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The merged write against the callers' updates sent one after another, with a foreign write
 * (one that does not raise the version) landing between the round's read and its write. On
 * two copies of a generated document, the server applies the foreign write and then either
 * every caller's update in turn, or the one merged update with its guards. Whenever the merged
 * write is applied, the two documents must be identical (values, BSON types, field order) and
 * no caller's lone update may have failed; a merged write the server refuses or whose guards
 * miss is fine (the round then reads again or sends each update alone). With no foreign write,
 * the guards must hold: they describe the document read.
 */
class MergedWritePropertyTest {
  private static final MongoCollection<BsonDocument> DOCS = TestMongo
      .freshDatabase("MergedWrite").getCollection("docs", BsonDocument.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final AtomicInteger MERGED = new AtomicInteger();
  private static final AtomicInteger COMPARED = new AtomicInteger();
  private static final AtomicInteger EMBEDDED_NUMBER_TYPES = new AtomicInteger();
  private static final JsonWriterSettings EXACT =
      JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
  private static final JsonWriterSettings RELAXED =
      JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

  record Case(BsonDocument document, BsonDocument foreign, List<BsonDocument> updates) {
    @Override
    public String toString() {
      return document.toJson(EXACT) + " foreign " + (foreign == null ? "none"
          : foreign.toJson(EXACT)) + " then " + updates.stream().map(u -> u.toJson(EXACT)).toList();
    }
  }

  @AfterAll
  static void report() {
    System.out.println("MergedWritePropertyTest: " + MERGED.get() + " rounds of several writers"
        + " merged, " + COMPARED.get() + " applied and compared with the lone updates ("
        + EMBEDDED_NUMBER_TYPES.get() + " equal but for the embedded server's $set of an equal"
        + " number)");
    assertThat(COMPARED.get()).as("the property checked enough merged writes").isGreaterThan(100);
  }

  @PropertyTest
  @MethodSource("cases")
  void theMergedWriteLeavesWhatTheLoneUpdatesLeave(Case c) {
    BsonDocument read = c.document();
    BsonDocument state = read;
    MergedWrite merged = null;
    List<BsonDocument> accepted = new ArrayList<>();
    for (BsonDocument update : c.updates()) {
      BsonDocument next;
      try {
        next = InMemoryUpdate.apply(state, update);
      } catch (InMemoryUpdate.NotModelled e) {
        break;
      }
      merged = merged == null ? MergedWrite.ofOperators(read) : merged;
      if (!merged.add(update, next)) {
        break;
      }
      next.put("version", new BsonInt64(read.getInt64("version").getValue() + accepted.size() + 1));
      accepted.add(update);
      state = next;
    }
    if (accepted.size() < 2) {
      return;
    }
    MERGED.incrementAndGet();
    BsonValue lone = insert(read);
    if (c.foreign() != null) {
      tryUpdate(lone, c.foreign());
    }
    boolean loneFailed = false;
    for (BsonDocument update : accepted) {
      BsonDocument withVersion = update.clone();
      BsonDocument inc = withVersion.containsKey("$inc") ? withVersion.getDocument("$inc")
          : new BsonDocument();
      inc.put("version", new BsonInt64(1));
      withVersion.put("$inc", inc);
      loneFailed |= !tryUpdate(lone, withVersion);
    }
    BsonValue batched = insert(read);
    if (c.foreign() != null) {
      tryUpdate(batched, c.foreign());
    }
    BsonDocument sent = merged.update("version", accepted.size(), state);
    BsonDocument filter = Store.withGuard(Filters.eq("_id", batched), merged.guard(),
        DOCS.getCodecRegistry());
    long matched;
    try {
      matched = DOCS.updateOne(filter, sent).getMatchedCount();
    } catch (MongoException refused) {
      return; // nothing written: each caller is then sent alone
    }
    if (c.foreign() == null) {
      assertThat(matched).as("guards %s on the document read", merged.guard()).isEqualTo(1);
    }
    if (matched == 0) {
      return; // a conflict: the round reads again
    }
    COMPARED.incrementAndGet();
    assertThat(loneFailed).as("a lone update failed where the merged write %s succeeded",
        sent.toJson(EXACT)).isFalse();
    String exactLone = withoutId(lone, EXACT);
    String exactBatched = withoutId(batched, EXACT);
    if (TestMongo.isEmbedded() && !exactLone.equals(exactBatched)
        && withoutId(lone, RELAXED).equals(withoutId(batched, RELAXED))) {
      // The embedded server keeps the stored type when $set writes an equal number of another
      // type (MongoDB stores the new one): a known difference of the test server, not of the
      // merged write. Against a real server (MONGODB_URI) this branch is never taken.
      EMBEDDED_NUMBER_TYPES.incrementAndGet();
      return;
    }
    assertThat(exactBatched).as("merged write %s guard %s", sent.toJson(EXACT),
        merged.guard()).isEqualTo(exactLone);
  }

  private static BsonValue insert(BsonDocument doc) {
    BsonDocument copy = new BsonDocument("_id", new BsonInt32(IDS.incrementAndGet()));
    copy.putAll(doc.clone());
    DOCS.insertOne(copy);
    return copy.get("_id");
  }

  private static boolean tryUpdate(BsonValue id, BsonDocument update) {
    try {
      DOCS.updateOne(Filters.eq("_id", id), update);
      return true;
    } catch (MongoException e) {
      return false;
    }
  }

  private static String withoutId(BsonValue id, JsonWriterSettings settings) {
    BsonDocument doc = DOCS.find(Filters.eq("_id", id)).first();
    doc.remove("_id");
    return doc.toJson(settings);
  }

  static Stream<Named<Case>> cases() {
    return Generated.cases(1500, Gen.of(MergedWritePropertyTest::drawCase));
  }

  // ---- generators: few paths, so that callers meet on them ----

  private static final String[] PATHS = {"n", "n", "n", "arr", "arr", "sub", "sub.x", "sub.y",
      "m", "s", "new1", "new2", "arr.0", "arr.3", "sub.deep.z"};
  private static final String[] OPERATORS = {"$inc", "$inc", "$inc", "$set", "$set", "$unset",
      "$push", "$push", "$addToSet", "$min", "$max", "$mul", "$pull"};

  private static Case drawCase(Random r) {
    BsonDocument doc = new BsonDocument();
    if (r.nextInt(5) > 0) {
      doc.put("n", number(r));
    }
    if (r.nextInt(4) > 0) {
      doc.put("arr", new BsonArray(new ArrayList<>(List.of(new BsonInt32(r.nextInt(3)),
          new BsonInt32(7)))));
    }
    if (r.nextInt(3) > 0) {
      doc.put("sub", new BsonDocument("x", new BsonInt32(1)));
    }
    if (r.nextBoolean()) {
      doc.put("m", new BsonInt64(5));
    }
    if (r.nextBoolean()) {
      doc.put("s", new BsonString("text"));
    }
    doc.put("version", new BsonInt64(3));
    List<BsonDocument> updates = new ArrayList<>();
    int callers = 2 + r.nextInt(4);
    for (int i = 0; i < callers; i++) {
      updates.add(update(r));
    }
    return new Case(doc, r.nextInt(4) == 0 ? null : foreign(r), updates);
  }

  private static BsonDocument update(Random r) {
    String op = OPERATORS[r.nextInt(OPERATORS.length)];
    String path = PATHS[r.nextInt(PATHS.length)];
    BsonDocument update = new BsonDocument(op, new BsonDocument(path, operand(r, op)));
    if (r.nextInt(5) == 0) {
      String other = PATHS[r.nextInt(PATHS.length)];
      String op2 = OPERATORS[r.nextInt(OPERATORS.length)];
      if (!other.equals(path) && !other.startsWith(path + ".") && !path.startsWith(other + ".")) {
        BsonDocument operands = update.containsKey(op2) ? update.getDocument(op2)
            : new BsonDocument();
        operands.put(other, operand(r, op2));
        update.put(op2, operands);
      }
    }
    return update;
  }

  private static BsonValue operand(Random r, String op) {
    return switch (op) {
      case "$unset" -> new BsonString("");
      case "$push", "$addToSet" -> r.nextInt(3) == 0
          ? new BsonDocument("$each", new BsonArray(List.of(new BsonInt32(r.nextInt(4)),
              new BsonInt32(r.nextInt(4)))))
          : new BsonInt32(r.nextInt(4));
      case "$set" -> r.nextInt(4) == 0
          ? new BsonDocument("x", new BsonInt32(r.nextInt(3))) : number(r);
      case "$pull" -> new BsonInt32(r.nextInt(4));
      default -> number(r);
    };
  }

  private static BsonValue number(Random r) {
    return switch (r.nextInt(6)) {
      case 0, 1 -> new BsonInt32(r.nextInt(7) - 2);
      case 2 -> new BsonInt64(r.nextInt(7) - 2);
      case 3 -> new BsonInt32(r.nextBoolean() ? Integer.MAX_VALUE - r.nextInt(3)
          : Integer.MIN_VALUE + r.nextInt(3));
      case 4 -> new BsonInt64(r.nextBoolean() ? Long.MAX_VALUE - r.nextInt(3)
          : Long.MIN_VALUE + r.nextInt(3));
      default -> new BsonDouble(r.nextBoolean() ? 0.5 : 4503599627370495.5);
    };
  }

  /** A write that does not raise the version: other fields, or the callers' own. */
  private static BsonDocument foreign(Random r) {
    return switch (r.nextInt(10)) {
      case 0 -> BsonDocument.parse("{$inc: {n: 1}}");
      case 1 -> BsonDocument.parse("{$set: {n: 2.5}}");
      case 2 -> BsonDocument.parse("{$unset: {n: ''}}");
      case 3 -> BsonDocument.parse("{$push: {arr: 9}}");
      case 4 -> BsonDocument.parse("{$set: {arr: 'scalar'}}");
      case 5 -> BsonDocument.parse("{$unset: {m: '', s: ''}}");
      case 6 -> BsonDocument.parse("{$set: {sub: 4}}");
      case 7 -> BsonDocument.parse("{$set: {legacy: [1], other: 'x'}}");
      case 8 -> BsonDocument.parse("{$set: {n: 'text'}}");
      default -> BsonDocument.parse("{$set: {new1: 1}}");
    };
  }
}
