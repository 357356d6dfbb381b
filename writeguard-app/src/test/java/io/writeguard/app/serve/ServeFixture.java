package io.writeguard.app.serve;

import static com.mongodb.client.model.Filters.eq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.app.testing.TestRedis;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.TestMongo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;

/**
 * One in-process {@code serve} for a test: a fresh database, every strategy, a real Javalin on
 * a free port, and a {@link HttpClient} to talk to it. Close it after the test.
 */
final class ServeFixture implements AutoCloseable {
  static final byte[] SECRET = "test-secret-for-writeguard-serve-0123456789".getBytes(StandardCharsets.UTF_8);
  static final ObjectMapper JSON = new ObjectMapper();

  final MongoDatabase db;
  final MongoCollection<Document> docs;
  final JwtAuth auth = new JwtAuth(JwtSecret.of(SECRET, "test"));
  final ServeMetrics metrics = new ServeMetrics();
  final ReadInfoServer server;
  final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10))
      .build();
  final MongoLeaseLockService mongoLocks;
  final LazyRedisLocks redisLocks;
  final MarkReadDeps deps;

  ServeFixture(String hint) {
    this(hint, b -> {}, ServeConfig.builder().port(0).build());
  }

  /** {@code tune} may change the strategies' deps (retry policy, lock wait, hooks). */
  ServeFixture(String hint, Consumer<MarkReadDeps.Builder> tune, ServeConfig config) {
    this(TestMongo.freshDatabase(hint), tune, config);
  }

  /** The same on {@code db} (e.g. reached through a proxy that can stall). */
  ServeFixture(MongoDatabase db, Consumer<MarkReadDeps.Builder> tune, ServeConfig config) {
    this.db = db;
    docs = db.getCollection("docs");
    mongoLocks = MongoLeaseLockService.builder(db, "docs_locks").listener(metrics.listener()).build();
    redisLocks = new LazyRedisLocks(TestRedis.uri(), metrics.listener());
    MarkReadDeps.Builder b = MarkReadDeps.builder(docs)
        .mongoLocks(mongoLocks)
        .redisLocks(redisLocks)
        .listener(metrics.listener());
    tune.accept(b);
    deps = b.build();
    Map<String, MarkReadStrategy> strategies = new LinkedHashMap<>();
    for (String name : MarkReadStrategies.NAMES) {
      strategies.put(name, MarkReadStrategies.create(name, deps));
    }
    server = ReadInfoServer.start(config, new ReadInfoService(docs, strategies, "atomic"),
        auth, metrics);
    server.onClose(metrics);
    server.onClose(mongoLocks);
    server.onClose(redisLocks);
  }

  String token(String user) {
    return auth.issue(user, Duration.ofMinutes(10));
  }

  /** A request to {@code path} (already percent-encoded) with {@code user}'s token, or none. */
  HttpRequest.Builder request(String path, String user) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path))
        .timeout(Duration.ofSeconds(30));
    if (user != null) {
      b.header("Authorization", "Bearer " + token(user));
    }
    return b;
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("request " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  HttpResponse<String> post(String path, String user, String body) {
    return send(request(path, user).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  HttpResponse<String> get(String path, String user) {
    return send(request(path, user).GET().build());
  }

  HttpResponse<String> mark(String id, String key, String skey, String i, String user, String strategy) {
    return post("/docs/" + id + "/infos/" + key + "/" + skey + "/" + i + "/read"
        + (strategy == null ? "" : "?strategy=" + strategy), user, "");
  }

  /** Creates a document of {@code keys} x {@code skeys} x {@code items} unread items. */
  String createDocument(int keys, int skeys, int items) {
    StringBuilder infos = new StringBuilder("{\"infos\":{");
    for (int k = 0; k < keys; k++) {
      infos.append(k == 0 ? "" : ",").append("\"k").append(k).append("\":{");
      for (int s = 0; s < skeys; s++) {
        infos.append(s == 0 ? "" : ",").append("\"s").append(s).append("\":[");
        for (int i = 0; i < items; i++) {
          infos.append(i == 0 ? "" : ",").append("{\"read\":[]}");
        }
        infos.append(']');
      }
      infos.append('}');
    }
    infos.append("}}");
    HttpResponse<String> created = post("/docs", "creator", infos.toString());
    if (created.statusCode() != 201) {
      throw new IllegalStateException("create failed: " + created.statusCode() + " " + created.body());
    }
    return json(created).get("id").asText();
  }

  /** The stored document's exact bytes. */
  byte[] rawBytes(String id) {
    RawBsonDocument raw = db.getCollection("docs", RawBsonDocument.class)
        .find(eq("_id", new ObjectId(id))).first();
    if (raw == null) {
      throw new IllegalStateException("no document " + id);
    }
    byte[] bytes = new byte[raw.getByteBuffer().remaining()];
    raw.getByteBuffer().get(bytes);
    return bytes;
  }

  Document stored(String id) {
    return docs.find(eq("_id", new ObjectId(id))).first();
  }

  static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("not JSON: " + response.body(), e);
    }
  }


  @Override
  public void close() {
    server.close();
  }
}
