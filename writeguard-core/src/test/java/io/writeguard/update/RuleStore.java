package io.writeguard.update;

import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteError;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.writeguard.Ticker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * A {@link Store} on the embedded server that also applies one of MongoDB's per-write checks
 * the embedded server leaves out (an index kind it ignores, storage validation): a write whose
 * stored result the rule refuses is undone and answered with the server's error code, as
 * MongoDB refuses it. The index list it reports ({@link #indexes}) is what
 * {@code listIndexes} would answer. Writes are serialized; for tests of one document.
 */
final class RuleStore implements Store {
  private final MongoStore plain;
  private final MongoCollection<Document> collection;
  private final Predicate<BsonDocument> refuses;
  private final int code;
  /** The collection's indexes, as {@code listIndexes} answers them. */
  final List<BsonDocument> indexes = new CopyOnWriteArrayList<>();
  final AtomicInteger refusals = new AtomicInteger();
  /** Writes sent (updates and replacements). */
  final AtomicInteger writes = new AtomicInteger();
  /** Every replacement sent, as sent. */
  final List<Document> replacements = new CopyOnWriteArrayList<>();

  /**
   * @param refuses true for a stored document the server would refuse
   * @param code the server's error code for it
   */
  RuleStore(MongoCollection<Document> collection, Predicate<BsonDocument> refuses, int code,
      String... indexes) {
    Ticker stopped = () -> 0L;
    this.plain = new MongoStore(collection, stopped);
    this.collection = collection;
    this.refuses = refuses;
    this.code = code;
    for (String index : indexes) {
      this.indexes.add(BsonDocument.parse(index));
    }
  }

  @Override
  public WriteConstraints constraints() {
    return WriteConstraints.of(indexes);
  }

  @Override
  public String collectionName() {
    return plain.collectionName();
  }

  @Override
  public CodecRegistry codecRegistry() {
    return plain.codecRegistry();
  }

  @Override
  public RawBsonDocument read(Object id) {
    return plain.read(id);
  }

  @Override
  public RawBsonDocument probe(Object id, String versionField) {
    return plain.probe(id, versionField);
  }

  @Override
  public synchronized WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    BsonValue id = idOf(filter);
    Document before = collection.find(Filters.eq("_id", id)).first();
    return checked(id, before, plain.update(filter, update, returnAfter));
  }

  @Override
  public synchronized WriteResult replace(Bson filter, Document replacement,
      boolean returnAfter) {
    replacements.add(new Document(replacement));
    BsonValue id = idOf(filter);
    Document before = collection.find(Filters.eq("_id", id)).first();
    return checked(id, before, plain.replace(filter, replacement, returnAfter));
  }

  private WriteResult checked(BsonValue id, Document before, WriteResult result) {
    writes.incrementAndGet();
    if (!result.matched()) {
      return result;
    }
    BsonDocument after = collection.find(Filters.eq("_id", id), BsonDocument.class).first();
    if (refuses.test(after)) {
      collection.replaceOne(Filters.eq("_id", id), before);
      refusals.incrementAndGet();
      throw new MongoWriteException(new WriteError(code, "E" + code + " refused by the rule",
          new BsonDocument()), new ServerAddress("127.0.0.1", 27017), List.of());
    }
    return result;
  }

  private BsonValue idOf(Bson filter) {
    return filter.toBsonDocument(BsonDocument.class, codecRegistry()).get("_id");
  }

  // ---- the server's rules ----

  /**
   * Storage validation's depth: a top-level field is at level 1, each element inside a
   * document or array one more; more than 180 is refused (code 15, Overflow).
   */
  static boolean tooDeep(BsonDocument doc) {
    return depth(doc, 0) > 180;
  }

  private static int depth(BsonValue value, int level) {
    int max = level;
    if (value.isDocument()) {
      for (BsonValue child : value.asDocument().values()) {
        max = Math.max(max, depth(child, level + 1));
      }
    } else if (value.isArray()) {
      for (BsonValue child : value.asArray()) {
        max = Math.max(max, depth(child, level + 1));
      }
    }
    return max;
  }

  /** MongoDB before 5.0 (or at feature compatibility 4.4): a $-named field (code 52). */
  static boolean hasDollarName(BsonValue value) {
    if (value.isDocument()) {
      for (var e : value.asDocument().entrySet()) {
        if (e.getKey().startsWith("$") || hasDollarName(e.getValue())) {
          return true;
        }
      }
    } else if (value.isArray()) {
      for (BsonValue child : value.asArray()) {
        if (hasDollarName(child)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A 2dsphere index on {@code field}: a value that is not a valid point (code 16755). */
  static Predicate<BsonDocument> badPoint(String field) {
    return doc -> {
      BsonValue v = doc.get(field);
      if (v == null) {
        return false;
      }
      if (!v.isDocument() || !"Point".equals(v.asDocument().getString("type",
          new org.bson.BsonString("")).getValue())) {
        return true;
      }
      BsonValue c = v.asDocument().get("coordinates");
      if (c == null || !c.isArray() || c.asArray().size() != 2) {
        return true;
      }
      double lng = c.asArray().get(0).asNumber().doubleValue();
      double lat = c.asArray().get(1).asNumber().doubleValue();
      return lng < -180 || lng > 180 || lat < -90 || lat > 90;
    };
  }
}
