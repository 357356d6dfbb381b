package io.writeguard.app.chaos;

import io.writeguard.app.chaos.Processes.ChildJvm;
import io.writeguard.app.cli.MainClass;
import io.writeguard.app.serve.JwtAuth;
import io.writeguard.app.serve.JwtSecret;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code writeguard serve} JVMs of a chaos run and the HTTP load on them: the JWT secret
 * they share, their arguments, the URL each listens on, and one recorded mark per request. The
 * black hole starts a group of its own behind the proxies; the serve faults share one group
 * ({@link #shared}), started by the first of them and closed with the run.
 *
 * <p>Used by the coordinator's thread, except {@link #request}, which the load's threads call
 * at the same time (it reads only what was set before they started).
 */
final class ServeJvms implements AutoCloseable {
  private final ChaosSettings settings;
  private final Path dir;
  private JwtAuth auth;
  private Path secretFile;
  private Group shared;

  ServeJvms(ChaosSettings settings, Path dir) {
    this.settings = settings;
    this.dir = dir;
  }

  /** Serve JVMs started together, with the base URL of each, in order. */
  record Group(List<ChildJvm> jvms, List<String> urls, String database)
      implements AutoCloseable {
    @Override
    public void close() {
      jvms.forEach(ChildJvm::close);
    }
  }

  /**
   * Starts one serve JVM per name on {@code database}, with {@code more} arguments, and waits
   * until each listens; those started are closed when one does not start.
   */
  Group start(List<String> names, String mongoUri, String redisUri, String database,
      List<String> more) throws IOException, InterruptedException {
    ensureAuth();
    List<ChildJvm> jvms = new ArrayList<>();
    try {
      for (String name : names) {
        jvms.add(ChildJvm.start(name, dir, MainClass.NAME,
            args(mongoUri, redisUri, database, more)));
      }
      return new Group(List.copyOf(jvms), urlsOf(jvms), database);
    } catch (InterruptedException | RuntimeException e) {
      jvms.forEach(ChildJvm::close);
      throw e;
    }
  }

  /**
   * The group the serve faults share ({@code serve-b}, {@code serve-term}, {@code serve-kill},
   * straight to the servers), started by the first call with these arguments.
   */
  Group shared(String mongoUri, String redisUri, String database)
      throws IOException, InterruptedException {
    if (shared == null) {
      shared = start(List.of("serve-b", "serve-term", "serve-kill"), mongoUri, redisUri,
          database, List.of("--lock-wait", settings.lockWait().toMillis() + "ms",
              "--mongo-timeout", settings.mongoTimeout().toMillis() + "ms",
              "--shutdown-grace", "10s"));
    }
    return shared;
  }

  /** The JWT secret every serve JVM shares, written once. */
  private void ensureAuth() throws IOException {
    if (auth != null) {
      return;
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    secretFile = dir.resolve("jwt-secret");
    Files.write(secretFile, secret);
    auth = new JwtAuth(JwtSecret.of(secret, "chaos"));
  }

  /**
   * The arguments of a serve JVM on {@code database}; its request deadline is passed only when
   * it differs from serve's default, so an earlier build's serve can be measured the same way.
   */
  private List<String> args(String mongo, String redisUri, String database, List<String> more) {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0",
        "--mongo-uri", mongo, "--redis-uri", redisUri, "--database", database,
        "--jwt-secret-file", secretFile.toString()));
    if (!settings.deadline().equals(ChaosSettings.DEFAULT_DEADLINE)) {
      args.addAll(List.of("--request-deadline", settings.deadline().toMillis() + "ms"));
    }
    args.addAll(more);
    return args;
  }

  /** The base URL each serve JVM prints once it listens, in their order. */
  private static List<String> urlsOf(List<ChildJvm> serves) throws InterruptedException {
    List<String> urls = new ArrayList<>();
    for (ChildJvm serve : serves) {
      urls.add(serve.await(l -> l.startsWith("http://"), ChildJvm.READY_WITHIN,
          new ArrayList<>()));
    }
    return urls;
  }

  /** The client of the HTTP load on serve JVMs. */
  static HttpClient httpClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  /**
   * One mark through HTTP on the document of {@code fault} and {@code strategy}, recorded; the
   * user is the operation's id, whose part before the first '-' names the client.
   */
  Op request(HttpClient http, String url, String id, String fault, String strategy) {
    int index = (int) (Math.abs(id.hashCode()) % Load.ITEMS);
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/docs/"
            + Load.docId(fault, strategy).toHexString() + "/infos/k0/s0/" + index + "/read?strategy="
            + strategy))
        .header("Authorization", "Bearer " + auth.issue(id, Duration.ofMinutes(30)))
        // Long enough to measure a request held for the whole black hole, not cut at the bound.
        .timeout(settings.bound(strategy).plus(settings.blackHole()).plus(ChaosSettings.SLACK))
        .POST(HttpRequest.BodyPublishers.noBody()).build();
    long startMillis = System.currentTimeMillis();
    long start = System.nanoTime();
    Op.Outcome outcome;
    String detail;
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      int status = response.statusCode();
      detail = "status=" + status + response.headers().firstValue("Retry-After")
          .map(v -> " retry-after=" + v).orElse("")
          + response.headers().firstValue("Server-Timing").map(v -> " server=" + v).orElse("")
          + " " + abbreviate(response.body());
      if (status == 200) {
        outcome = Op.Outcome.ACK;
      } else if (status == 503 && !response.body().contains("shutting down")) {
        outcome = Op.Outcome.UNKNOWN; // a stall or an unconfirmed write may have applied it
      } else {
        outcome = Op.Outcome.FAIL; // refused before anything was written
      }
    } catch (ConnectException e) {
      outcome = Op.Outcome.FAIL; // never connected: never sent
      detail = "io=" + e;
    } catch (IOException e) {
      outcome = Op.Outcome.UNKNOWN;
      detail = "io=" + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = Op.Outcome.UNKNOWN;
      detail = "interrupted";
    }
    String client = id.substring(0, id.indexOf('-'));
    return new Op(id, Load.READINFO, strategy, client, outcome, startMillis,
        System.nanoTime() - start, 0, 0, false, detail);
  }

  private static String abbreviate(String body) {
    return body.length() <= 160 ? body : body.substring(0, 160) + "...";
  }

  @Override
  public void close() {
    if (shared != null) {
      shared.close();
    }
  }
}
