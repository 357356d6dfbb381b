package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;

import io.writeguard.internal.UsualIds;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.bson.conversions.Bson;
import org.bson.codecs.configuration.CodecRegistry;

/**
 * The fenced filter and update of one {@link FencedWriter}, as BSON ready to send: what
 * {@link Fencing#fencedFilter} and {@link Fencing#fencedUpdate} give, rendered with the
 * collection's registry. Not API; immutable and thread-safe.
 *
 * <p>Why. The driver's builders render anew for every command: a fenced filter by
 * {@code _id} is four of them, each value looked up in the codec registry, some 3 KB of garbage
 * per write, claim or read of a lock holder. Here the same BSON is built directly: the
 * {@code _id} and the token as the registry encodes them ({@link UsualIds}: directly for the
 * driver's own codecs, else through the registry), a caller's filter or update rendered once,
 * as the driver would. {@code FencedBsonTest} holds every form equal to the builders'
 * rendering, field for field.
 */
final class FencedBson {
  private final CodecRegistry registry;
  private final UsualIds values;
  private final String fenceField;
  private final BsonDocument fenceUnset;

  FencedBson(CodecRegistry registry, String fenceField) {
    this.registry = registry;
    this.values = UsualIds.of(registry);
    this.fenceField = fenceField;
    this.fenceUnset = new BsonDocument(fenceField, BsonNull.VALUE);
  }

  /**
   * {@code Fencing.fencedFilter(extra == null ? eq(_id, id) : and(eq(_id, id), extra), token)}:
   * {@code {$and: [<by id>, {$or: [{_fence: null}, {_fence: {$lte: token}}]}]}}.
   */
  BsonDocument filter(Object id, Bson extra, long token) {
    BsonDocument byId = new BsonDocument("_id", value("_id", id));
    BsonDocument matched = extra == null ? byId : and(byId, render(extra));
    BsonArray allowed = new BsonArray(2);
    allowed.add(fenceUnset);
    allowed.add(new BsonDocument(fenceField,
        new BsonDocument("$lte", value(fenceField, token))));
    return and(matched, new BsonDocument("$or", allowed));
  }

  /** {@code $max} of the fence to {@code token}: {@code Updates.max(fenceField, token)}. */
  BsonDocument raise(long token) {
    return new BsonDocument("$max", new BsonDocument(fenceField, value(fenceField, token)));
  }

  /**
   * {@code Fencing.fencedUpdate(update, token)}: the same check, then {@code update} with the
   * fence's {@code $max} merged in as {@code Updates.combine} merges it (after the update's own
   * operators, inside its {@code $max} if it has one), without changing {@code update}.
   *
   * @throws IllegalArgumentException if {@code update} writes the fence field, or is not a
   *     document of update operators
   */
  Bson update(Bson update, long token) {
    if (!(update instanceof BsonDocument given)) {
      return Fencing.fencedUpdate(update, fenceField, token); // rendered by the driver, as ever
    }
    Fencing.checkLeavesFence(given, fenceField);
    BsonDocument fenced = new BsonDocument();
    for (Map.Entry<String, BsonValue> operator : given.entrySet()) {
      fenced.append(operator.getKey(), operator.getValue());
    }
    BsonValue raised = value(fenceField, token);
    BsonDocument max = fenced.getDocument("$max", null);
    if (max == null) {
      fenced.append("$max", new BsonDocument(fenceField, raised));
    } else {
      fenced.append("$max", max.clone().append(fenceField, raised));
    }
    return fenced;
  }

  private static BsonDocument and(BsonDocument first, BsonDocument second) {
    BsonArray clauses = new BsonArray(2);
    clauses.add(first);
    clauses.add(second);
    return new BsonDocument("$and", clauses);
  }

  /** {@code value} as {@code eq(name, value)} renders it. */
  private BsonValue value(String name, Object value) {
    BsonValue direct = values.asBson(value);
    return direct != null ? direct : render(eq(name, value)).get(name);
  }

  private BsonDocument render(Bson bson) {
    return bson.toBsonDocument(BsonDocument.class, registry);
  }
}
