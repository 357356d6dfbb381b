package io.writeguard.app.serve;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.router.Endpoint;
import io.writeguard.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of {@code writeguard serve}: Javalin (Jetty 12) with the {@link ReadInfoApi}
 * routes, started on the configured host and port.
 *
 * <p><b>Graceful stop</b> ({@link #close}): first the {@link InFlightGate} stops admitting
 * (later requests get 503 with {@code Retry-After}), then it waits up to the configured grace
 * for the requests in progress to finish, then Jetty stops, then the resources registered with
 * {@link #onClose} (lock services, the database client) are closed in reverse order. The order
 * matters: a request in progress may hold a lock, and its handler releases it in a
 * {@code finally}; closing the lock services first would leave the lease to expire instead.
 * Jetty-level refusals (a malformed request line, a URI past the header buffer) are answered by
 * Jetty itself, without a stack trace.
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class ReadInfoServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReadInfoServer.class);
  /** The methods a known route refuses with 405 when it does not serve them. */
  private static final List<HandlerType> REFUSABLE = List.of(HandlerType.GET, HandlerType.HEAD,
      HandlerType.POST, HandlerType.PUT, HandlerType.PATCH, HandlerType.DELETE,
      HandlerType.OPTIONS);

  private final Javalin app;
  private final InFlightGate gate;
  private final ServeConfig config;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final int port;

  private ReadInfoServer(Javalin app, InFlightGate gate, ServeConfig config) {
    this.app = app;
    this.gate = gate;
    this.config = config;
    this.port = app.port(); // Jetty forgets it once stopped
  }

  /**
   * Starts the server.
   *
   * @throws IllegalStateException naming host and port when Jetty cannot bind
   */
  public static ReadInfoServer start(
      ServeConfig config, ReadInfoService service, JwtAuth auth, ServeMetrics metrics) {
    Ticker ticker = Ticker.system();
    InFlightGate gate = new InFlightGate(ticker);
    ReadInfoApi api = new ReadInfoApi(service, auth, metrics, config, gate, ticker);
    Javalin app = Javalin.create(cfg -> {
      cfg.startup.showJavalinBanner = false;
      cfg.startup.showOldJavalinVersionWarning = false;
      cfg.http.maxRequestSize = config.maxBodyBytes();
      cfg.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
      cfg.jetty.modifyHttpConfiguration(http -> {
        http.setRequestHeaderSize(config.maxUriBytes());
        http.setSendServerVersion(false);
      });
      cfg.routes.post("/docs", api.route("/docs", api::createDocument));
      cfg.routes.get("/docs/{id}", api.route("/docs/{id}", api::getDocument));
      String mark = "/docs/{id}/infos/{key}/{skey}/{i}/read";
      cfg.routes.post(mark, api.route(mark, api::markRead));
      cfg.routes.get("/health", api.route("/health", api::health));
      cfg.routes.get("/health/ready", api.route("/health/ready", api::health));
      cfg.routes.get("/health/live", api.route("/health/live", api::live));
      cfg.routes.get("/metrics", api.route("/metrics", api::metrics));
      // Before the POST catch-all below: Javalin takes the first route that matches.
      refuseOtherMethods(cfg.routes, api, "/docs", HandlerType.POST);
      refuseOtherMethods(cfg.routes, api, "/docs/{id}", HandlerType.GET);
      refuseOtherMethods(cfg.routes, api, mark, HandlerType.POST);
      for (String get : List.of("/health", "/health/ready", "/health/live", "/metrics")) {
        refuseOtherMethods(cfg.routes, api, get, HandlerType.GET);
      }
      cfg.routes.post("/docs/<rest>", api.route("/docs/<rest>", api::unmatchedMark));
      cfg.routes.exception(HttpResponseException.class,
          (e, ctx) -> api.unmatched(ctx, e.getStatus(), Shown.value(e.getMessage())));
      cfg.routes.exception(Exception.class, (e, ctx) -> {
        log.error("unhandled", e);
        api.unmatched(ctx, 500, "internal error");
      });
    });
    try {
      app.start(config.host(), config.port());
    } catch (RuntimeException e) {
      app.stop();
      throw new IllegalStateException("cannot listen on " + config.host() + ":" + config.port()
          + ": " + rootMessage(e), e);
    }
    return new ReadInfoServer(app, gate, config);
  }

  /**
   * Makes every other common method on {@code template} answer 405 with an {@code Allow}
   * header. Javalin answers HEAD for a GET route by itself, so a GET route allows HEAD too.
   * TRACE and CONNECT are left to Jetty (404).
   */
  private static void refuseOtherMethods(
      RoutesConfig routes, ReadInfoApi api, String template, HandlerType allowed) {
    boolean get = allowed.equals(HandlerType.GET);
    String allow = get ? "GET, HEAD" : allowed.name();
    for (HandlerType method : REFUSABLE) {
      if (method.equals(allowed) || (get && method.equals(HandlerType.HEAD))) {
        continue;
      }
      routes.addEndpoint(new Endpoint(method, template,
          api.route(template, ctx -> api.methodNotAllowed(ctx, allow))));
    }
  }

  /** The port bound (the chosen one when the config said 0). */
  public int port() {
    return port;
  }

  /** {@code http://host:port}. */
  public String url() {
    String host = config.host();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
  }

  /** Requests in progress now. */
  public int inFlight() {
    return gate.inFlight();
  }

  /** Closes {@code resource} after the HTTP server stopped (last registered, first closed). */
  public synchronized void onClose(AutoCloseable resource) {
    resources.add(resource);
  }

  /** Stops gracefully; see the class doc. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    gate.close();
    int left;
    try {
      left = gate.awaitIdle(config.shutdownGrace());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      left = gate.inFlight();
    }
    if (left > 0) {
      log.warn("{} request(s) still running after the {} ms shutdown grace; stopping anyway",
          left, config.shutdownGrace().toMillis());
    }
    app.stop();
    List<AutoCloseable> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(resources);
    }
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (Exception e) {
        log.warn("closing {} failed", toClose.get(i), e);
      }
    }
  }

  /** Jetty's server, for tests. */
  Server jetty() {
    return app.jettyServer().server();
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.toString();
  }

}
