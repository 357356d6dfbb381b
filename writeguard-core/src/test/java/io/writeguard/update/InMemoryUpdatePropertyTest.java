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
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The in-memory operators against the server: for generated documents and sequences of
 * updates, every update {@link InMemoryUpdate} models must succeed on the server and leave
 * exactly the document the model computed (types, values and field order: compared as
 * canonical extended JSON). Updates it refuses are sent anyway to move the sequence on.
 *
 * <p>The generators aim at the edges: int32/int64/double mixes, int32 and int64 overflow,
 * -0.0, NaN and infinities, {@code $min}/{@code $max} across types, {@code $addToSet} of
 * documents and of {@code 1} against {@code 1.0}, {@code $push} and {@code $unset} on array
 * elements, missing fields and nested paths to create.
 */
class InMemoryUpdatePropertyTest {
  private static final MongoCollection<BsonDocument> DOCS = TestMongo
      .freshDatabase("InMemoryUpdate").getCollection("docs", BsonDocument.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final AtomicInteger MODELLED = new AtomicInteger();
  private static final AtomicInteger TRIED = new AtomicInteger();
  private static final JsonWriterSettings EXACT =
      JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

  /** A generated starting document and the updates applied to it in turn. */
  record Case(BsonDocument document, List<BsonDocument> updates) {
    @Override
    public String toString() {
      return document.toJson(EXACT) + " then " + updates.stream().map(u -> u.toJson(EXACT)).toList();
    }
  }

  @AfterAll
  static void report() {
    System.out.println("InMemoryUpdatePropertyTest: " + MODELLED.get() + " of " + TRIED.get()
        + " updates modelled and checked against the server");
    // Guards the property against vacuity: most updates must be modelled, or it checks nothing.
    assertThat(MODELLED.get()).isGreaterThan(TRIED.get() / 3);
  }

  @PropertyTest
  @MethodSource("cases")
  void everyModelledUpdateLeavesWhatTheServerLeaves(Case c) {
    BsonDocument doc = c.document().clone();
    doc.put("_id", new BsonInt32(IDS.incrementAndGet()));
    DOCS.insertOne(doc);
    BsonDocument state = read(doc.get("_id"));
    // Every state the model produced, as it was then: later updates must not change it
    // (results share the containers they do not write).
    List<Map.Entry<BsonDocument, String>> kept = new ArrayList<>();
    for (BsonDocument update : c.updates()) {
      TRIED.incrementAndGet();
      BsonDocument model;
      String refusal = null;
      String before = state.toJson(EXACT);
      try {
        model = InMemoryUpdate.apply(state, update);
      } catch (InMemoryUpdate.NotModelled e) {
        model = null;
        refusal = e.getMessage();
      }
      assertThat(state.toJson(EXACT)).as("the document an update was applied to, unchanged")
          .isEqualTo(before);
      MongoException serverError = null;
      try {
        DOCS.updateOne(Filters.eq("_id", doc.get("_id")), update);
      } catch (MongoException e) {
        serverError = e;
      }
      BsonDocument after = read(doc.get("_id"));
      if (model != null) {
        MODELLED.incrementAndGet();
        assertThat(serverError).as("the server refused a modelled update %s on %s",
            update.toJson(EXACT), state.toJson(EXACT)).isNull();
        assertThat(model.toJson(EXACT)).as("update %s on %s", update.toJson(EXACT),
            state.toJson(EXACT)).isEqualTo(after.toJson(EXACT));
        kept.add(Map.entry(model, model.toJson(EXACT)));
        state = model; // the next update works on the model's result, sharing and all
      } else {
        assertThat(refusal).isNotBlank();
        state = after;
      }
    }
    for (Map.Entry<BsonDocument, String> k : kept) {
      assertThat(k.getKey().toJson(EXACT)).as("a kept state, after the later updates")
          .isEqualTo(k.getValue());
    }
  }

  private static BsonDocument read(BsonValue id) {
    return DOCS.find(Filters.eq("_id", id)).first();
  }

  static Stream<Named<Case>> cases() {
    return Generated.cases(400, Gen.of(InMemoryUpdatePropertyTest::drawCase));
  }

  // ---- generators ----

  private static final String[] FIELDS = {"a", "b", "n", "s", "arr", "sub"};
  private static final String[] PATHS = {"a", "b", "n", "s", "arr", "sub", "missing",
      "sub.x", "sub.y", "sub.new", "arr.0", "arr.1", "arr.4", "arr.0.x", "new.deep.path",
      "sub.inner.z", "arr.x"};
  private static final String[] OPERATORS =
      {"$set", "$unset", "$inc", "$mul", "$min", "$max", "$push", "$addToSet", "$pull"};

  private static Case drawCase(Random r) {
    BsonDocument doc = new BsonDocument();
    for (String f : FIELDS) {
      if (r.nextInt(4) > 0) {
        doc.put(f, f.equals("arr") ? array(r, 0) : f.equals("sub") ? subDocument(r, 0) : scalar(r));
      }
    }
    List<BsonDocument> updates = new ArrayList<>();
    int n = 1 + r.nextInt(4);
    for (int i = 0; i < n; i++) {
      updates.add(update(r));
    }
    return new Case(doc, updates);
  }

  private static BsonDocument update(Random r) {
    BsonDocument update = new BsonDocument();
    int ops = 1 + (r.nextInt(4) == 0 ? 1 : 0);
    for (int i = 0; i < ops; i++) {
      String op = OPERATORS[r.nextInt(OPERATORS.length)];
      String path = PATHS[r.nextInt(PATHS.length)];
      BsonDocument operand = update.containsKey(op) ? update.getDocument(op) : new BsonDocument();
      operand.put(path, operand(r, op));
      update.put(op, operand);
    }
    return update;
  }

  private static BsonValue operand(Random r, String op) {
    switch (op) {
      case "$inc":
      case "$mul":
        return r.nextInt(10) == 0 ? scalar(r) : number(r);
      case "$unset":
        return new BsonString("");
      case "$push":
      case "$addToSet":
        if (r.nextInt(3) == 0) {
          return new BsonDocument("$each", array(r, 1));
        }
        return value(r, 1);
      case "$pull":
        return r.nextInt(4) == 0 ? value(r, 1) : scalar(r);
      default:
        return value(r, 0);
    }
  }

  private static BsonValue value(Random r, int depth) {
    int pick = r.nextInt(depth >= 2 ? 1 : 5);
    return switch (pick) {
      case 3 -> array(r, depth + 1);
      case 4 -> subDocument(r, depth + 1);
      default -> scalar(r);
    };
  }

  private static BsonValue scalar(Random r) {
    return switch (r.nextInt(6)) {
      case 0, 1, 2 -> number(r);
      case 3 -> new BsonString(new String[] {"", "a", "b", "\u00e9", "\uD83D\uDE00", "\uFF04"}[r.nextInt(6)]);
      case 4 -> BsonNull.VALUE;
      default -> BsonBoolean.valueOf(r.nextBoolean());
    };
  }

  private static BsonValue number(Random r) {
    switch (r.nextInt(3)) {
      case 0: {
        int[] edges = {0, 1, -1, 2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE, 46341, 65536};
        return new BsonInt32(r.nextBoolean() ? edges[r.nextInt(edges.length)] : r.nextInt(100) - 50);
      }
      case 1: {
        long[] edges = {0, 1, -1, 2, Long.MAX_VALUE, Long.MIN_VALUE, 3037000500L,
            Integer.MAX_VALUE + 1L, 1L << 53};
        return new BsonInt64(r.nextBoolean() ? edges[r.nextInt(edges.length)] : r.nextInt(100) - 50);
      }
      default: {
        double[] edges = {0.0, -0.0, 1.0, -1.5, 0.1, 2.5, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, 1e308, 9.007199254740993e15};
        return new BsonDouble(r.nextBoolean() ? edges[r.nextInt(edges.length)]
            : (r.nextInt(200) - 100) / 4.0);
      }
    }
  }

  private static BsonArray array(Random r, int depth) {
    BsonArray a = new BsonArray();
    int n = r.nextInt(4);
    for (int i = 0; i < n; i++) {
      a.add(depth >= 2 ? scalar(r) : value(r, depth + 1));
    }
    return a;
  }

  private static BsonDocument subDocument(Random r, int depth) {
    BsonDocument d = new BsonDocument();
    String[] names = {"x", "y", "z"};
    for (String name : names) {
      if (r.nextBoolean()) {
        d.put(name, depth >= 2 ? scalar(r) : value(r, depth + 1));
      }
    }
    return d;
  }
}
