package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bug: serve's MongoDB client had only a server-selection timeout, so on a server that
 * stalls without closing its connections (SIGSTOP) every request waited as long as the stall,
 * {@code mongo-lock} ignored {@code --lock-wait}, and optimistic answered 409 "document is
 * busy", blaming contention for an outage; {@code /health} said 200 throughout.
 *
 * <p>Here MongoDB is reached through a proxy that stops forwarding (connections stay open),
 * with the client's timeout at 1 s. Every answer must come within its bound (2 reads of 1 s, 3 s
 * of server selection, 1 s of lock wait: under 10 s; asserted with generous slack for a loaded
 * machine) and be a 503 with Retry-After, never a 409.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class ServeStalledMongoTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration BOUND_WITH_SLACK = Duration.ofSeconds(30);

  private StallingProxy proxy;
  private MongoClient client;
  private ServeFixture serve;

  @BeforeEach
  void start() throws Exception {
    ServerAddress target = new ServerAddress(
        new ConnectionString(TestMongo.uri()).getHosts().get(0));
    proxy = new StallingProxy(target.getHost(), target.getPort());
    client = MongoClients.create(MongoTarget.settings(new ConnectionString(
        "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true"), 16, TIMEOUT));
    serve = new ServeFixture(client.getDatabase("wg_ServeStalled_" + System.nanoTime()),
        b -> b.lockWait(Duration.ofSeconds(1)), ServeConfig.builder().port(0).build());
  }

  @AfterEach
  void stop() {
    serve.close();
    client.close();
    proxy.close();
  }

  private HttpResponse<String> timed(String what, Supplier<HttpResponse<String>> call) {
    long start = System.nanoTime();
    HttpResponse<String> response = call.get();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as(what + " answered " + response.statusCode() + " after " + took)
        .isLessThan(BOUND_WITH_SLACK);
    return response;
  }

  @Test
  void aStalledMongoAnswers503WithRetryAfterWithinTheBoundNever409() {
    String id = serve.createDocument(1, 1, 2);
    assertThat(serve.get("/health", null).statusCode()).isEqualTo(200);
    proxy.stall();

    for (String strategy : new String[] {"atomic", "optimistic", "mongo-lock"}) {
      HttpResponse<String> r = timed(strategy,
          () -> serve.mark(id, "k0", "s0", "0", "u-" + strategy, strategy));
      assertThat(r.statusCode()).as(strategy + ": " + r.body()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).as(strategy).isPresent();
    }
    HttpResponse<String> read = timed("GET /docs", () -> serve.get("/docs/" + id, "reader"));
    assertThat(read.statusCode()).isEqualTo(503);

    HttpResponse<String> ready = timed("/health/ready", () -> serve.get("/health/ready", null));
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(ServeFixture.json(ready).get("checks").get("mongodb").asText()).startsWith("down");
    assertThat(timed("/health", () -> serve.get("/health", null)).statusCode()).isEqualTo(503);
    assertThat(timed("/health/live", () -> serve.get("/health/live", null)).statusCode())
        .isEqualTo(200);
  }
}
