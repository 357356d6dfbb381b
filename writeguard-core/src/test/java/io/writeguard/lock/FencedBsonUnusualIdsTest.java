package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static io.writeguard.lock.BuiltBson.assertSameBson;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Updates;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.UuidRepresentation;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;
import org.bson.types.Binary;
import org.bson.types.Code;
import org.bson.types.Decimal128;
import org.bson.types.MaxKey;
import org.bson.types.MinKey;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * The fenced writer's BSON built by hand against the builders' rendering for ids of every BSON
 * type the driver encodes, UUIDs under each UUID representation a client can be set to, odd
 * fence field names, and a caller's filter given as a Document, a BsonDocument or a builder.
 */
class FencedBsonUnusualIdsTest {
  private static final CodecRegistry DEFAULTS = MongoClientSettings.getDefaultCodecRegistry();
  private static final long TOKEN = 3_650_722_201_075_712L;
  private static final List<String> FENCES = List.of(Fencing.FIELD, "fence", "x y", "ü", "x$");

  private static List<Object> ids(boolean withUuids) {
    List<Object> ids = new ArrayList<>(Arrays.asList(new ObjectId(), "k", "", 7, 7L,
        Long.MIN_VALUE, 7.0, Double.NaN, 7.5f, (short) 7, 'c', true,
        new Decimal128(new BigDecimal("7.50")), Decimal128.NaN, Decimal128.NEGATIVE_ZERO,
        new BsonInt64(7), new BsonSymbol("s"), new BsonTimestamp(1, 2), new MinKey(),
        new MaxKey(), new Date(0), Pattern.compile("a.*", Pattern.CASE_INSENSITIVE),
        new Code("x"), new byte[] {1, 2}, new Binary((byte) 0x80, new byte[] {3}),
        new BsonDocument("a", new BsonInt32(1)), new Document("b", List.of(1, "x")),
        new Document("a", 1).append("b", new Document("c", 2L)), List.of(1, 2L, "t")));
    if (withUuids) {
      UUID uuid = UUID.fromString("01020304-0506-0708-090a-0b0c0d0e0f10");
      ids.add(uuid);
      ids.add(new Document("u", uuid));
      ids.add(List.of(uuid));
    }
    return ids;
  }

  private static List<CodecRegistry> registries() {
    List<CodecRegistry> registries = new ArrayList<>();
    for (UuidRepresentation r : UuidRepresentation.values()) {
      if (r != UuidRepresentation.UNSPECIFIED) {
        registries.add(CodecRegistries.withUuidRepresentation(DEFAULTS, r));
        registries.add(CodecRegistries.withUuidRepresentation(BuiltBson.ownStringsAndLongs(), r));
      }
    }
    return registries;
  }

  @Test
  void filtersOfEveryIdAreWhatTheBuildersRendered() {
    List<Bson> extras = Arrays.asList(null, new Document("version", 3L),
        BsonDocument.parse("{version: {$numberLong: '3'}}"), eq("state", "open"),
        and(eq("a", "b"), in("n", 2L, 3)));
    List<CodecRegistry> registries = new ArrayList<>(registries());
    registries.add(DEFAULTS); // UNSPECIFIED: no UUID can be encoded, by either
    for (CodecRegistry registry : registries) {
      for (String field : FENCES) {
        FencedBsonTest.assertFiltersAreTheBuilders(registry, field, ids(registry != DEFAULTS),
            extras);
      }
    }
  }

  @Test
  void updatesCarryingEveryValueAreWhatTheBuildersRendered() {
    for (CodecRegistry registry : registries()) {
      for (String field : FENCES) {
        FencedBson bson = new FencedBson(registry, field);
        for (Object value : ids(true)) {
          BsonDocument set = Updates.set("v", value).toBsonDocument(BsonDocument.class, registry);
          List<Bson> updates = new ArrayList<>(List.of(set,
              new BsonDocument("$max", set.getDocument("$set").clone())
                  .append("$set", new BsonDocument("w", new BsonInt32(1)))));
          if (!containsUuid(value)) {
            // Not BSON yet: left to Fencing.fencedUpdate, whose check renders it with the
            // driver's default registry, where no UUID can be encoded (before and after).
            updates.add(Updates.combine(Updates.set("v", value), Updates.max("m", 4L)));
            updates.add(new Document("$set", new Document("v", value)));
          }
          for (Bson update : updates) {
            Bson copy = update instanceof BsonDocument given ? given.clone() : update;
            assertSameBson(bson.update(update, TOKEN),
                Fencing.fencedUpdate(copy, field, TOKEN), registry);
          }
        }
      }
    }
  }

  private static boolean containsUuid(Object value) {
    return value instanceof UUID || value instanceof Document d && d.containsKey("u")
        || value instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof UUID;
  }
}
