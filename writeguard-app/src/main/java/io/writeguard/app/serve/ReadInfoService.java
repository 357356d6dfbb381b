package io.writeguard.app.serve;

import static com.mongodb.client.model.Filters.eq;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoCollection;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.app.readinfo.MarkResult;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
  private final MongoCollection<Document> collection;
  private final Map<String, MarkReadStrategy> strategies;
  private final String defaultStrategy;

  /**
   * @param strategies the strategies requests may name, by name
   * @throws IllegalArgumentException when {@code defaultStrategy} is not among them
   */
  public ReadInfoService(MongoCollection<Document> collection,
      Map<String, MarkReadStrategy> strategies, String defaultStrategy) {
    this.collection = Objects.requireNonNull(collection, "collection");
    this.strategies = Map.copyOf(new LinkedHashMap<>(strategies));
    if (!strategies.containsKey(defaultStrategy)) {
      throw new IllegalArgumentException("default strategy must be one of " + strategies.keySet()
          + ", was '" + defaultStrategy + "'");
    }
    this.defaultStrategy = defaultStrategy;
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
    Document doc = collection.find(eq("_id", id)).first();
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
    return strategy(strategy).mark(item, user);
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
