package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.lock.BuiltBson.assertSameBson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Updates;
import io.writeguard.version.VersionPolicy;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * A fenced writer's filters and updates are what {@link Fencing}'s builders rendered, field for
 * field and in order: for ids of every usual and unusual type, with and without a filter of the
 * caller's, with the driver's codecs and with an application's own, under any fence field.
 */
class FencedBsonTest {
  private static final CodecRegistry DEFAULTS = MongoClientSettings.getDefaultCodecRegistry();
  private static final List<CodecRegistry> REGISTRIES =
      List.of(DEFAULTS, BuiltBson.ownStringsAndLongs());
  private static final List<Object> IDS = Arrays.asList(new ObjectId(), "k", 7, 7L, 7.5,
      new BsonString("b"), new Document("a", 1).append("b", "x"), new byte[] {1, 2}, null);
  private static final long TOKEN = 3_650_722_201_075_712L;

  @Test
  void filtersAreWhatTheBuildersRendered() {
    BsonDocument usable = VersionPolicy.defaults().usableFilter()
        .toBsonDocument(BsonDocument.class, DEFAULTS);
    List<Bson> extras = Arrays.asList(null, new Document("_id", 9).append("version", 3L),
        usable, eq("state", "open"), and(eq("a", "b"), eq("n", 2L)));
    for (CodecRegistry registry : REGISTRIES) {
      for (String field : List.of(Fencing.FIELD, "fence")) {
        assertFiltersAreTheBuilders(registry, field, IDS, extras);
      }
    }
  }

  /** Each id's filter with each extra (null: none), and the raise, against the builders'. */
  static void assertFiltersAreTheBuilders(CodecRegistry registry, String field, List<Object> ids,
      List<Bson> extras) {
    FencedBson bson = new FencedBson(registry, field);
    for (Object id : ids) {
      for (Bson extra : extras) {
        Bson byId = eq("_id", id);
        assertSameBson(bson.filter(id, extra, TOKEN), Fencing.fencedFilter(
            extra == null ? byId : and(byId, extra), field, TOKEN), registry);
      }
    }
    assertSameBson(bson.raise(TOKEN), Updates.max(field, TOKEN), registry);
  }

  @Test
  void updatesAreWhatTheBuildersRenderedAndTheCallersAreLeftAsTheyWere() {
    List<Bson> updates = List.of(VersionPolicy.defaults().increment(),
        BsonDocument.parse("{$set: {a: 1}, $max: {b: 2}, $inc: {n: 1}}"),
        BsonDocument.parse("{$max: {b: 2}}"),
        new Document("$set", new Document("a", "x")),
        Updates.combine(Updates.set("s", "t"), Updates.max("m", 4L)),
        Updates.inc("n", 1L));
    for (CodecRegistry registry : REGISTRIES) {
      for (String field : List.of(Fencing.FIELD, "fence")) {
        FencedBson bson = new FencedBson(registry, field);
        for (Bson update : updates) {
          BsonDocument before = update.toBsonDocument(BsonDocument.class, registry).clone();
          Bson built = bson.update(update, TOKEN);
          BsonDocument sent = built.toBsonDocument(BsonDocument.class, registry).clone();
          assertThat(update.toBsonDocument(BsonDocument.class, registry))
              .as("the caller's update, unchanged").isEqualTo(before);
          // The builders' combine merges the fence into a BsonDocument's own $max: render a copy.
          Bson copy = update instanceof BsonDocument given ? given.clone() : update;
          assertSameBson(sent, Fencing.fencedUpdate(copy, field, TOKEN), registry);
        }
      }
    }
  }

  @Test
  void updatesThatWriteTheFenceAreRefusedAsBefore() {
    FencedBson bson = new FencedBson(DEFAULTS, Fencing.FIELD);
    for (Bson update : List.of(BsonDocument.parse("{$set: {_fence: 1}}"),
        BsonDocument.parse("{$inc: {'_fence.x': 1}}"), BsonDocument.parse("{v: 1}"),
        new Document("$max", new Document("_fence", 9)))) {
      assertThatThrownBy(() -> bson.update(update, TOKEN))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(messageOf(() -> Fencing.fencedUpdate(update, TOKEN)));
    }
    assertThat(bson.update(BsonDocument.parse("{$set: {_fencex: 1, '_fence_y': 2}}"), TOKEN))
        .as("a field that only starts with the fence's name").isNotNull();
  }

  private static String messageOf(Runnable call) {
    try {
      call.run();
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused");
  }
}
