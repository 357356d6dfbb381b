package io.writeguard.app.serve;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.writeguard.Ticker;
import io.writeguard.app.readinfo.MarkResult;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.deadline.Deadlines;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.types.ObjectId;

/**
 * The routes of {@code writeguard serve}, each a plain method on a {@link Context}:
 *
 * <pre>
 * POST /docs                                      201 {"id": "<hex>"}          create, version 0
 * GET  /docs/{id}                                 200 the document as JSON
 * POST /docs/{id}/infos/{key}/{skey}/{i}/read     200 {"added": .., "version": ..}  mark as read
 * GET  /health/live                               200 {"status": "ok"} while the process serves
 * GET  /health/ready, /health                     200 {"status": "ok", "checks": {..}}, or
 *                                                 503 {"status": "unavailable", ..} when
 *                                                 MongoDB (or Redis, when in use) is down
 * GET  /metrics                                   200 Prometheus text
 * </pre>
 *
 * <p>Any other GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS on one of these paths gets 405
 * with {@code Allow} ({@link #methodNotAllowed}); a path none of them matches gets 404.
 *
 * <p>Every route is wrapped by {@link #route}: it admits the request through the
 * {@link InFlightGate} (503 once shutdown began), turns any exception into the
 * {@link ErrorMapper}'s answer, writes and flushes the answer itself before the request counts
 * as finished (so a graceful stop never cuts a response that was already decided), and times
 * it for {@code writeguard_http_requests_seconds}. The {@code /docs} routes need a bearer token
 * ({@link JwtAuth}); the user comes from it alone. Checks run in this order: identity (401),
 * then every parameter (400), then the database (404, 409, 503), so a refused request never
 * writes. Thread-safe.
 */
public final class ReadInfoApi {
  static final String JSON = "application/json";
  /**
   * How much of a refused body is read and thrown away before the 413 is sent (as Tomcat's
   * maxSwallowSize). Answering while the client is still sending makes Jetty close a
   * connection with unread bytes in it; the kernel then resets it, and the client can lose the
   * 413 before reading it ("header parser received no bytes"). Reading the rest first means the
   * answer is always delivered; a body larger than this is cut off unread.
   */
  static final long MAX_SWALLOW_BYTES = 1 << 20;
  /**
   * The answer's time in this process, from the route's first step to the answer being
   * written ({@code Server-Timing: app;dur=<ms>}, W3C Server Timing): a client that waited
   * longer than this waited on the network, the machine or the server's queue, not on the
   * request's work.
   */
  static final String SERVER_TIMING = "Server-Timing";
  private static final String STARTED = "writeguard.started";

  private final ReadInfoService service;
  private final JwtAuth auth;
  private final ServeMetrics metrics;
  private final ErrorMapper errors;
  private final InFlightGate gate;
  private final ServeConfig config;
  private final Ticker ticker;
  private final ObjectMapper json;

  ReadInfoApi(ReadInfoService service, JwtAuth auth, ServeMetrics metrics, ServeConfig config,
      InFlightGate gate, Ticker ticker) {
    this.service = service;
    this.auth = auth;
    this.metrics = metrics;
    this.config = config;
    this.errors = new ErrorMapper(config.retryAfterSeconds());
    this.gate = gate;
    this.ticker = ticker;
    this.json = jsonMapper();
  }

  /**
   * Strict JSON: a repeated key, trailing garbage or nesting deeper than 64 is a 400, not
   * silently "last one wins".
   */
  static ObjectMapper jsonMapper() {
    JsonFactory factory = JsonFactory.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
        .build();
    return JsonMapper.builder(factory)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();
  }

  void createDocument(Context ctx) {
    auth.authenticate(ctx.header("Authorization"));
    ObjectId id = service.create(readJson(ctx));
    ctx.header("Location", "/docs/" + id.toHexString());
    respondJson(ctx, 201, Map.of("id", id.toHexString()));
  }

  void getDocument(Context ctx) {
    auth.authenticate(ctx.header("Authorization"));
    ObjectId id = MarkParams.objectId(ctx.pathParam("id"));
    respondJson(ctx, 200, service.get(id));
  }

  void markRead(Context ctx) {
    String user = auth.authenticate(ctx.header("Authorization"));
    ObjectId id = MarkParams.objectId(ctx.pathParam("id"));
    ReadItem item = MarkParams.item(id, ctx.pathParam("key"), ctx.pathParam("skey"),
        ctx.pathParam("i"));
    String strategy = ctx.queryParam("strategy");
    service.strategy(strategy); // 400 for an unknown name before anything is read
    MarkResult result = service.mark(strategy, item, user);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", id.toHexString());
    body.put("key", item.key());
    body.put("skey", item.skey());
    body.put("i", item.index());
    body.put("user", user);
    body.put("strategy", result.strategy());
    body.put("added", result.added());
    result.version().ifPresent(v -> body.put("version", v));
    respondJson(ctx, 200, body);
  }

  /**
   * A POST under {@code /docs/} that the mark route did not match. An empty segment
   * ({@code /docs/ID/infos//s/0/read}) never matches a {@code {param}}, so without this the
   * client would get a bare "no such route"; here it gets 400 naming the empty parameter.
   * Read from the raw URI, so an encoded {@code %2F} inside a segment does not split it.
   */
  void unmatchedMark(Context ctx) {
    auth.authenticate(ctx.header("Authorization"));
    String[] parts = ctx.req().getRequestURI().split("/", -1);
    // "", "docs", id, "infos", key, skey, i, "read"
    if (parts.length == 8 && parts[3].equals("infos") && parts[7].equals("read")) {
      // The same checks as the route, in the same order; an empty segment fails them.
      ObjectId id = MarkParams.objectId(decode(parts[2]));
      MarkParams.item(id, decode(parts[4]), decode(parts[5]), decode(parts[6]));
    }
    throw ApiException.notFound(null, "no route POST " + Shown.value(ctx.req().getRequestURI())
        + " (marks go to POST /docs/{id}/infos/{key}/{skey}/{i}/read)");
  }

  private static String decode(String rawSegment) {
    return URLDecoder.decode(rawSegment.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** Liveness: the process serves requests; says nothing about MongoDB or Redis. */
  void live(Context ctx) {
    respondJson(ctx, 200, Map.of("status", "ok"));
  }

  /**
   * Readiness ({@code /health/ready}, and {@code /health}): 200 when every backend the service
   * uses answers, else 503 with {@code Retry-After}, naming which check failed.
   */
  void health(Context ctx) {
    Map<String, String> checks = service.readiness();
    boolean ready = checks.values().stream().allMatch("ok"::equals);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", ready ? "ok" : "unavailable");
    body.put("checks", checks);
    body.put("strategies", service.strategyNames());
    body.put("defaultStrategy", service.defaultStrategy());
    if (!ready) {
      ctx.header("Retry-After", String.valueOf(config.retryAfterSeconds()));
    }
    respondJson(ctx, ready ? 200 : 503, body);
  }

  void metrics(Context ctx) {
    respond(ctx, 200, ServeMetrics.contentType(),
        metrics.scrape().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Runs {@code handler} under the request's deadline: every MongoDB operation, Redis command
   * and lock wait of the request gets the time left (one bound per request, not per operation).
   */
  private void handleWithin(Context ctx, Handler handler) throws Exception {
    Exception[] failed = new Exception[1];
    Deadlines.within(config.requestDeadline(), () -> {
      try {
        handler.handle(ctx);
      } catch (Exception e) {
        failed[0] = e;
      }
    });
    if (failed[0] != null) {
      throw failed[0];
    }
  }

  /** The route {@code handler}, admitted, error-mapped, answered and timed; see the class doc. */
  Handler route(String template, Handler handler) {
    return ctx -> {
      long start = ticker.nanoTime();
      ctx.attribute(STARTED, start);
      if (!gate.enter()) {
        ctx.header("Connection", "close");
        respondError(ctx, new ErrorResponse(503, "the server is shutting down", null,
            config.retryAfterSeconds()));
        metrics.recordRequest(ctx.method().name(), template, 503, elapsed(start));
        return;
      }
      try {
        handleWithin(ctx, handler);
      } catch (Exception e) {
        respondError(ctx, errors.map(e));
      } finally {
        gate.leave();
        metrics.recordRequest(ctx.method().name(), template, ctx.statusCode(), elapsed(start));
      }
    };
  }

  /**
   * 405 for a method the route does not serve, with {@code Allow} (RFC 9110 requires it) and the
   * usual JSON error. Nothing is authenticated, read or written.
   */
  void methodNotAllowed(Context ctx, String allow) {
    ctx.header("Allow", allow);
    respondError(ctx, new ErrorResponse(405,
        "method " + ctx.method().name() + " not allowed here; allowed: " + allow, null, null));
  }

  /** Answers a request that matched no route (or a Javalin-level refusal) in our error shape. */
  void unmatched(Context ctx, int status, String message) {
    respondError(ctx, new ErrorResponse(status, message, null, null));
  }

  /** {@code app;dur=} and the milliseconds, to a tenth. */
  static String serverTiming(long nanos) {
    long tenths = Math.max(0, nanos) / 100_000;
    return "app;dur=" + tenths / 10 + "." + tenths % 10;
  }

  private Duration elapsed(long start) {
    return Duration.ofNanos(ticker.nanoTime() - start);
  }

  /** The body as JSON, refused with 413 past the limit and 400 when it is not JSON. */
  private JsonNode readJson(Context ctx) {
    long declared = ctx.req().getContentLengthLong();
    int limit = config.maxBodyBytes();
    if (declared > limit) {
      if (declared <= MAX_SWALLOW_BYTES) {
        swallow(ctx);
      }
      throw ApiException.tooLarge(limit);
    }
    byte[] body;
    try (InputStream in = ctx.req().getInputStream()) {
      body = in.readNBytes(limit + 1);
    } catch (IOException e) {
      throw new UncheckedIOException("reading the request body", e);
    }
    if (body.length > limit) {
      swallow(ctx); // chunked: no length was declared
      throw ApiException.tooLarge(limit);
    }
    if (body.length == 0) {
      throw ApiException.badRequest("", "the body must be a JSON object {\"infos\": {...}}");
    }
    try {
      return json.readTree(body);
    } catch (JacksonException e) {
      throw ApiException.badRequest("", "the body is not valid JSON: "
          + Shown.value(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new UncheckedIOException("parsing the request body", e);
    }
  }

  /**
   * Reads and discards what is left of a refused body, up to {@link #MAX_SWALLOW_BYTES}, so the
   * 413 is not sent into a connection the client is still writing to. Errors are ignored: the
   * request is refused anyway.
   */
  private static void swallow(Context ctx) {
    byte[] sink = new byte[8192];
    long read = 0;
    try {
      InputStream in = ctx.req().getInputStream();
      for (int n; read <= MAX_SWALLOW_BYTES && (n = in.read(sink)) >= 0; ) {
        read += n;
      }
    } catch (IOException | RuntimeException e) {
      // nothing to do: the answer is 413 whatever the rest of the body was
    }
  }

  private void respondError(Context ctx, ErrorResponse error) {
    if (error.retryAfterSeconds() != null) {
      ctx.header("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    respondJson(ctx, error.status(), error.body());
  }

  private void respondJson(Context ctx, int status, Object body) {
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException("writing a JSON answer", e);
    }
    respond(ctx, status, JSON, bytes);
  }

  /** Writes and flushes the whole answer now, so it is on the wire before the request ends. */
  private void respond(Context ctx, int status, String contentType, byte[] bytes) {
    ctx.status(status);
    Long started = ctx.attribute(STARTED);
    if (started != null) {
      ctx.header(SERVER_TIMING, serverTiming(ticker.nanoTime() - started));
    }
    ctx.res().setContentType(contentType);
    ctx.res().setContentLength(bytes.length);
    try {
      ctx.res().getOutputStream().write(bytes);
      ctx.res().flushBuffer();
    } catch (IOException e) {
      // The client went away; nothing else to tell it.
    }
  }
}
