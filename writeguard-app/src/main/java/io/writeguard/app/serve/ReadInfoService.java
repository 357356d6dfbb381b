package io.writeguard.app.serve;

import static com.mongodb.client.model.Filters.eq;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Projections;
import io.writeguard.internal.Deadline;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.app.readinfo.MarkResult;
import io.writeguard.app.readinfo.NoSuchDocumentException;
import io.writeguard.app.readinfo.NoSuchItemException;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * What the routes do, without HTTP: create a {@code readinfo} document, read one, mark an item
 * read with a named strategy. The strategies are the shared {@code io.writeguard.app.readinfo}
 * ones; this class only picks one by name and never writes a mark itself.
 *
 * <pre>{@code
 * { _id: ObjectId("..."), version: 0L,
 *   infos: { "<key>": { "<skey>": [ { read: ["alice"], ... }, ... ] } } }
 * }</pre>
 *
 * Thread-safe: the strategies are, and the map is not changed after construction.
 */
public final class ReadInfoService {
  /** Strategies whose first step writes (a fencing claim); see {@link #requireItem}. */
  private static final Set<String> FENCED = Set.of("mongo-lock", "redis-lock");
  /** The {@code _id} the MongoDB readiness check looks up; no document has it. */
  private static final String READINESS_PROBE_ID = "writeguard:readiness";

  private final MongoCollection<Document> collection;
  private final Map<String, MarkReadStrategy> strategies;
  private final String defaultStrategy;
  private final Map<String, BooleanSupplier> readinessChecks;

  /**
   * @param strategies the strategies requests may name, by name
   * @throws IllegalArgumentException when {@code defaultStrategy} is not among them
   */
  public ReadInfoService(MongoCollection<Document> collection,
      Map<String, MarkReadStrategy> strategies, String defaultStrategy) {
    this(collection, strategies, defaultStrategy, Map.of());
  }

  /**
   * The same, with readiness checks besides MongoDB's, by name: each throws when its backend
   * does not answer, and returns false when it does not apply now (e.g. Redis while no Redis
   * strategy is in use); see {@link #readiness()}.
   */
  public ReadInfoService(MongoCollection<Document> collection,
      Map<String, MarkReadStrategy> strategies, String defaultStrategy,
      Map<String, BooleanSupplier> readinessChecks) {
    this.readinessChecks = new LinkedHashMap<>();
    this.readinessChecks.put("mongodb", () -> {
      Deadline.bounded(collection).find(eq("_id", READINESS_PROBE_ID)).projection(new Document("_id", 1)).first();
      return true;
    });
    this.readinessChecks.putAll(readinessChecks);
    this.collection = Objects.requireNonNull(collection, "collection");
    this.strategies = Map.copyOf(new LinkedHashMap<>(strategies));
    if (!strategies.containsKey(defaultStrategy)) {
      throw new IllegalArgumentException("default strategy must be one of " + strategies.keySet()
          + ", was '" + defaultStrategy + "'");
    }
    this.defaultStrategy = defaultStrategy;
  }

  /**
   * Runs every readiness check, one after the other: {@code mongodb} (one indexed
   * {@code find} on the collection, bounded by the client's timeouts) and those given at
   * construction (Redis when a Redis strategy is in use). Thread-safe.
   *
   * @return per check that applies, {@code "ok"} or {@code "down: <kind of error>"}, in order
   */
  public Map<String, String> readiness() {
    Map<String, String> result = new LinkedHashMap<>();
    readinessChecks.forEach((name, check) -> {
      try {
        if (check.getAsBoolean()) {
          result.put(name, "ok");
        }
      } catch (RuntimeException e) {
        result.put(name, "down: " + e.getClass().getSimpleName());
      }
    });
    return result;
  }

  /** Inserts a document with the body's {@code infos} at version 0 and returns its new id. */
  public ObjectId create(JsonNode body) {
    Document doc = new Document("_id", new ObjectId()).append("infos", DocumentBody.infos(body));
    VersionedInsert.insertOne(collection, VersionPolicy.defaults(), doc);
    return doc.getObjectId("_id");
  }

  /**
   * The document as plain JSON.
   *
   * @throws ApiException 404 when there is none
   */
  public Map<String, Object> get(ObjectId id) {
    Document doc = Deadline.bounded(collection).find(eq("_id", id)).first();
    if (doc == null) {
      throw ApiException.notFound("id", "no document with id " + id.toHexString());
    }
    return DocumentJson.of(doc);
  }

  /**
   * Marks {@code item} read by {@code user} with the strategy named {@code strategy}, or the
   * default one when it is null.
   *
   * @throws ApiException 400 naming {@code strategy} when no strategy has that name
   */
  public MarkResult mark(String strategy, ReadItem item, String user) {
    MarkReadStrategy chosen = strategy(strategy);
    if (FENCED.contains(chosen.name())) {
      requireItem(item);
    }
    return chosen.mark(item, user);
  }

  /**
   * 404 unless the item exists, by one projected read. Used before the fenced lock strategies
   * only: their first step under the lock is a fencing claim that raises the document's
   * {@code _fence}, a write, and a mark of a missing item must leave the document byte for
   * byte as it was. No route removes items or documents, so the check cannot go stale; were
   * one added, the strategy's own check after the claim still answers 404.
   */
  private void requireItem(ReadItem item) {
    String list = "infos." + item.key() + "." + item.skey();
    Document doc = Deadline.bounded(collection).find(eq("_id", item.docId()))
        .projection(Projections.include(list)).first();
    if (doc == null) {
      throw new NoSuchDocumentException(collection.getNamespace().getCollectionName(), item);
    }
    Object infos = doc.get("infos");
    Object skeys = infos instanceof Document d ? d.get(item.key()) : null;
    Object items = skeys instanceof Document d ? d.get(item.skey()) : null;
    boolean found = items instanceof List<?> l && item.index() < l.size()
        && l.get(item.index()) instanceof Document;
    if (!found) {
      throw new NoSuchItemException(collection.getNamespace().getCollectionName(), item);
    }
  }

  /**
   * The strategy named {@code name}, or the default one when it is null.
   *
   * @throws ApiException 400 naming {@code strategy} when no strategy has that name
   */
  MarkReadStrategy strategy(String name) {
    MarkReadStrategy chosen = strategies.get(name == null ? defaultStrategy : name);
    if (chosen == null) {
      throw ApiException.badRequest("strategy", "strategy must be one of "
          + new java.util.TreeSet<>(strategies.keySet()) + ", was '" + Shown.value(name) + "'");
    }
    return chosen;
  }

  public Set<String> strategyNames() {
    return strategies.keySet();
  }

  public String defaultStrategy() {
    return defaultStrategy;
  }

  public MongoCollection<Document> collection() {
    return collection;
  }
}
