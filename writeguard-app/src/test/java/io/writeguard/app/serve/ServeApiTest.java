package io.writeguard.app.serve;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.update.RetryPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every status the service answers, each from a real cause, over real HTTP. */
class ServeApiTest {
  private ServeFixture serve;
  private String id;

  @BeforeEach
  void start() {
    serve = new ServeFixture("ServeApi");
    id = serve.createDocument(2, 2, 3);
  }

  @AfterEach
  void stop() {
    serve.close();
  }

  @Test
  void createAnswers201WithAHexIdAndTheDocumentStartsAtVersionZero() {
    HttpResponse<String> created = serve.post("/docs", "alice",
        "{\"infos\": {\"news\": {\"today\": [{\"title\": \"a\"}, {\"read\": [\"bob\"]}]}}}");

    assertThat(created.statusCode()).isEqualTo(201);
    String newId = ServeFixture.json(created).get("id").asText();
    assertThat(newId).matches("[0-9a-f]{24}");
    assertThat(created.headers().firstValue("Location")).contains("/docs/" + newId);
    Document stored = serve.stored(newId);
    assertThat(stored.get("version")).isEqualTo(0L);
    assertThat(stored.get("_id")).isEqualTo(new ObjectId(newId));

    JsonNode doc = ServeFixture.json(serve.get("/docs/" + newId, "alice"));
    assertThat(doc.get("id").asText()).isEqualTo(newId);
    assertThat(doc.get("version").asLong()).isZero();
    assertThat(doc.at("/infos/news/today/0/title").asText()).isEqualTo("a");
    assertThat(doc.at("/infos/news/today/0/read").isArray()).as("read list made empty").isTrue();
    assertThat(doc.at("/infos/news/today/1/read/0").asText()).isEqualTo("bob");
  }

  @Test
  void everyAnswerOfARouteSaysHowLongItsWorkTook() {
    List<HttpResponse<String>> answers = List.of(
        serve.mark(id, "k1", "s0", "2", "alice", "optimistic"), // 200
        serve.mark(id, "k1", "s0", "2", "alice", "no-such-strategy"), // 400
        serve.get("/docs/" + new ObjectId().toHexString(), "alice"), // 404
        serve.get("/docs/" + id, null), // 401
        serve.get("/health/live", null));
    for (HttpResponse<String> r : answers) {
      assertThat(r.headers().firstValue("Server-Timing")).as("%s %s", r.statusCode(), r.body())
          .hasValueSatisfying(v -> assertThat(v).matches("app;dur=\\d+\\.\\d"));
    }
  }

  @Test
  void markAnswers200AndARepeatedClickChangesNothing() {
    HttpResponse<String> first = serve.mark(id, "k1", "s0", "2", "alice", "optimistic");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    JsonNode body = ServeFixture.json(first);
    assertThat(body.get("added").asBoolean()).isTrue();
    assertThat(body.get("user").asText()).isEqualTo("alice");
    assertThat(body.get("version").asLong()).isEqualTo(1);
    byte[] after = serve.rawBytes(id);

    HttpResponse<String> again = serve.mark(id, "k1", "s0", "2", "alice", "atomic");

    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(ServeFixture.json(again).get("added").asBoolean()).isFalse();
    assertThat(ServeFixture.json(again).has("version")).as("atomic keeps no version").isFalse();
    assertThat(serve.rawBytes(id)).as("repeated click").isEqualTo(after);
    assertThat(readList(id, "k1", "s0", 2)).containsExactly("alice");
  }

  @Test
  void theUserComesFromTheTokenNeverFromTheBody() {
    HttpResponse<String> r = serve.post("/docs/" + id + "/infos/k0/s0/0/read", "alice",
        "{\"user\": \"mallory\", \"userId\": \"mallory\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(readList(id, "k0", "s0", 0)).containsExactly("alice");
  }

  @Test
  void defaultStrategyIsAtomic() {
    HttpResponse<String> r = serve.mark(id, "k0", "s1", "1", "alice", null);
    assertThat(ServeFixture.json(r).get("strategy").asText()).isEqualTo("atomic");
  }

  @Test
  void badIdIs400NamingIdAndMissingDocumentIs404() {
    byte[] before = serve.rawBytes(id);
    for (String bad : List.of("xyz", "0123456789abcdef0123456", "0123456789abcdef012345678",
        "zzzzzzzzzzzzzzzzzzzzzzzz", "%24where")) {
      HttpResponse<String> r = serve.mark(bad, "k0", "s0", "0", "alice", null);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo("id");
    }
    String missing = new ObjectId().toHexString();
    HttpResponse<String> r = serve.mark(missing, "k0", "s0", "0", "alice", null);
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo("id");
    assertThat(serve.get("/docs/" + missing, "alice").statusCode()).isEqualTo(404);
    assertThat(serve.get("/docs/nothex", "alice").statusCode()).isEqualTo(400);
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"naive", "atomic", "optimistic", "local-lock", "mongo-lock", "adaptive"})
  void missingItemIs404AndNothingIsCreated(String strategy) {
    byte[] before = serve.rawBytes(id);
    for (String[] item : List.of(new String[] {"k9", "s0", "0"}, new String[] {"k0", "s9", "0"},
        new String[] {"k0", "s0", "3"}, new String[] {"k0", "s0", "1000"})) {
      HttpResponse<String> r = serve.mark(id, item[0], item[1], item[2], "alice", strategy);
      assertThat(r.statusCode()).as("%s %s", strategy, List.of(item)).isEqualTo(404);
      assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo("i");
    }
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  @Test
  void emptySegmentsAre400NamingTheParameter() {
    byte[] before = serve.rawBytes(id);
    assertEmpty("/docs/" + id + "/infos//s0/0/read", "key");
    assertEmpty("/docs/" + id + "/infos/k0//0/read", "skey");
    assertEmpty("/docs/" + id + "/infos/k0/s0//read", "i");
    assertEmpty("/docs//infos/k0/s0/0/read", "id");
    assertThat(serve.post("/docs/" + id + "/infos/k0/s0/0/unread", "alice", "").statusCode())
        .isEqualTo(404);
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  private void assertEmpty(String path, String field) {
    HttpResponse<String> r = serve.post(path, "alice", "");
    assertThat(r.statusCode()).as(path).isEqualTo(400);
    assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo(field);
  }

  /**
   * Regression: mongo-lock and redis-lock once shared one fence field, so after one backend
   * wrote with its higher token every mark of the other was refused as stale (409).
   */
  @Test
  void mongoLockAndRedisLockCanTakeTurnsOnOneDocument() {
    for (int round = 0; round < 3; round++) {
      for (String strategy : List.of("redis-lock", "redis-lock", "redis-lock", "mongo-lock",
          "mongo-lock", "mongo-lock", "mongo-lock", "mongo-lock", "redis-lock")) {
        String user = strategy + "-" + round + "-" + System.nanoTime();
        HttpResponse<String> r = serve.mark(id, "k0", "s1", "0", user, strategy);
        assertThat(r.statusCode()).as("%s: %s", strategy, r.body()).isEqualTo(200);
      }
    }
    assertThat(readList(id, "k0", "s1", 0)).hasSize(27).doesNotHaveDuplicates();
    JsonNode doc = ServeFixture.json(serve.get("/docs/" + id, "alice"));
    assertThat(doc.has("_fence")).as("lock bookkeeping is not shown").isFalse();
    assertThat(doc.has("_fence_redis")).isFalse();
  }

  @Test
  void unknownStrategyIs400NamingStrategy() {
    HttpResponse<String> r = serve.mark(id, "k0", "s0", "0", "alice", "yolo");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo("strategy");
    assertThat(ServeFixture.json(r).get("error").asText()).contains("yolo", "atomic");
  }

  @Test
  void badBodiesAre400NamingTheField() {
    assertBadBody("", "");
    assertBadBody("not json", "");
    assertBadBody("[]", "");
    assertBadBody("{\"infos\": {}} trailing", "");
    assertBadBody("{\"infos\": {}, \"infos\": {}}", "");
    assertBadBody("{}", "/infos");
    assertBadBody("{\"infos\": {}, \"version\": 7}", "/version");
    assertBadBody("{\"infos\": {}, \"_id\": 1}", "/_id");
    assertBadBody("{\"infos\": []}", "/infos");
    assertBadBody("{\"infos\": {\"$where\": {}}}", "/infos/$where");
    assertBadBody("{\"infos\": {\"a.b\": {}}}", "/infos/a.b");
    assertBadBody("{\"infos\": {\"k\": {\"s\": {}}}}", "/infos/k/s");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [1]}}}", "/infos/k/s/0");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"read\": \"bob\"}]}}}", "/infos/k/s/0/read");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"read\": [\"bob\", \"bob\"]}]}}}", "/infos/k/s/0/read/1");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"x\": {\"$set\": 1}}]}}}", "/infos/k/s/0/x/$set");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"n\": 123456789012345678901234567890}]}}}", "/infos/k/s/0/n");
    // The bug: 1e999999 was stored as Infinity and read back as the string "Infinity".
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"n\": 1e999999}]}}}", "/infos/k/s/0/n");
    assertBadBody("{\"infos\": {\"k\": {\"s\": [{\"m\": [1, -1e999999]}]}}}", "/infos/k/s/0/m/1");
    assertThat(serve.docs.countDocuments()).as("nothing inserted").isEqualTo(1);
  }

  private void assertBadBody(String body, String field) {
    HttpResponse<String> r = serve.post("/docs", "alice", body);
    assertThat(r.statusCode()).as(body).isEqualTo(400);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode json = ServeFixture.json(r);
    assertThat(json.get("field").asText()).as(body).isEqualTo(field);
    assertThat(json.get("error").asText()).isNotBlank();
  }

  @Test
  void bodyLargerThanTheLimitIs413() {
    String big = "{\"infos\": {\"k\": {\"s\": [{\"pad\": \"" + "x".repeat(70_000) + "\"}]}}}";
    HttpResponse<String> r = serve.post("/docs", "alice", big);
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(ServeFixture.json(r).get("error").asText()).contains("65536");
    assertThat(serve.docs.countDocuments()).isEqualTo(1);
  }

  @Test
  void aRefusedBodyIsReadToTheEndSoThe413ArrivesOnAConnectionThatStaysUsable() throws Exception {
    // bodyLargerThanTheLimitIs413 once failed under load with "header parser received no
    // bytes": the 413 was sent (from Content-Length alone) while the client was still sending
    // the body, Jetty closed the connection with unread bytes in it, the kernel reset it and
    // the client lost the answer. Now the server reads the refused body (up to 1 MiB) first.
    // Forced: half the body is sent, and the client waits (1 s) for an answer it must not get
    // yet; the old server answered at once and closed the connection under the second half.
    // Then the rest is sent, the 413 read, and a second request on the same connection must be
    // answered (a connection closed on unread bytes is not).
    URI uri = URI.create(serve.server.url());
    byte[] body = ("{\"infos\": {\"k\": {\"s\": [{\"pad\": \"" + "x".repeat(70_000)
        + "\"}]}}}").getBytes(StandardCharsets.UTF_8);
    try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
      socket.setSoTimeout(30_000);
      java.io.OutputStream out = socket.getOutputStream();
      java.io.BufferedInputStream in = new java.io.BufferedInputStream(socket.getInputStream());
      out.write(("POST /docs HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nAuthorization: Bearer "
          + serve.token("alice") + "\r\nContent-Type: application/json\r\nContent-Length: "
          + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(body, 0, body.length / 2);
      out.flush();
      socket.setSoTimeout(1_000);
      try {
        int early = in.read();
        throw new AssertionError("the server answered before reading the body (first byte "
            + early + "): the client may still be sending when the connection is closed");
      } catch (java.net.SocketTimeoutException expected) {
        // still reading the refused body, as it should
      }
      socket.setSoTimeout(30_000);
      out.write(body, body.length / 2, body.length - body.length / 2);
      out.flush();
      assertThat(readResponse(in)).startsWith("HTTP/1.1 413").contains("65536");

      out.write(("GET /health/live HTTP/1.1\r\nHost: " + uri.getHost() + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
    }
    assertThat(serve.docs.countDocuments()).isEqualTo(1);
  }

  /** One HTTP/1.1 response with a Content-Length: status line, headers and body, as text. */
  private static String readResponse(java.io.InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed after " + head.length() + " bytes: " + head);
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern
        .compile("(?i)content-length:\\s*(\\d+)").matcher(head);
    int n = length.find() ? Integer.parseInt(length.group(1)) : 0;
    return head + new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }

  @Test
  void chunkedBodyLargerThanTheLimitIs413() {
    byte[] big = ("{\"infos\": {\"k\": {\"s\": [{\"pad\": \"" + "x".repeat(70_000) + "\"}]}}}").getBytes();
    HttpRequest request = serve.request("/docs", "alice")
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big)))
        .build(); // no Content-Length: sent chunked
    assertThat(serve.send(request).statusCode()).isEqualTo(413);
  }

  @Test
  void retriesRunningOutIs409WithRetryAfter() {
    ServeFixture hot = hotFixture();
    try {
      String doc = hot.createDocument(1, 1, 1);
      HttpResponse<String> r = hot.mark(doc, "k0", "s0", "0", "alice", "optimistic");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
      assertThat(r.headers().firstValue("Retry-After")).contains("1");
      assertThat(ServeFixture.json(r).get("error").asText()).contains("busy");
      assertThat(readList(hot, doc, "k0", "s0", 0)).as("nothing written").isEmpty();
    } finally {
      hot.close();
    }
  }

  /** One attempt only, and another writer moves the version between every read and write. */
  private ServeFixture hotFixture() {
    ServeFixture[] self = new ServeFixture[1];
    ServeFixture f = new ServeFixture("ServeApiHot", b -> b
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build())
        .betweenReadAndWrite(() -> self[0].docs.updateMany(new Document(),
            Updates.inc("version", 1L))),
        ServeConfig.builder().port(0).build());
    self[0] = f;
    return f;
  }

  @Test
  void aLockHeldPastTheWaitIs503WithRetryAfter() {
    LocalLockService locks = LocalLockService.create();
    ServeFixture locked = new ServeFixture("ServeApiLocked",
        b -> b.localLocks(locks).lockWait(Duration.ofMillis(200)),
        ServeConfig.builder().port(0).retryAfter(Duration.ofSeconds(2)).build());
    try {
      String doc = locked.createDocument(1, 1, 1);
      byte[] before = locked.rawBytes(doc);
      try (LockHandle held = locks.acquire("docs:" + new ObjectId(doc), Duration.ofSeconds(1))) {
        HttpResponse<String> r = locked.mark(doc, "k0", "s0", "0", "alice", "local-lock");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).contains("2");
        assertThat(ServeFixture.json(r).get("error").asText()).contains("not acquired within 200ms");
      }
      assertThat(locked.rawBytes(doc)).isEqualTo(before);
      assertThat(locked.mark(doc, "k0", "s0", "0", "alice", "local-lock").statusCode())
          .as("free again").isEqualTo(200);
    } finally {
      locked.close();
    }
  }

  @Test
  void unknownRoutesAnswerJson404AndNeverAStackTrace() {
    HttpResponse<String> r = serve.get("/nope", "alice");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).doesNotContain("Exception", "\tat ");
    assertThat(ServeFixture.json(r).get("error").asText()).isNotBlank();
  }

  @Test
  void healthNeedsNoToken() {
    HttpResponse<String> r = serve.get("/health", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(ServeFixture.json(r).get("status").asText()).isEqualTo("ok");
    assertThat(ServeFixture.json(r).get("checks").get("mongodb").asText()).isEqualTo("ok");
    assertThat(serve.get("/health/ready", null).statusCode()).isEqualTo(200);
    assertThat(serve.get("/health/live", null).statusCode()).isEqualTo(200);
  }

  private List<Object> readList(String doc, String key, String skey, int i) {
    return readList(serve, doc, key, skey, i);
  }

  @SuppressWarnings("unchecked")
  static List<Object> readList(ServeFixture f, String doc, String key, String skey, int i) {
    Document stored = f.docs.find(eq("_id", new ObjectId(doc))).first();
    Document item = ((List<Document>) stored.get("infos", Document.class)
        .get(key, Document.class).get(skey)).get(i);
    return (List<Object>) item.get("read");
  }
}
