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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One bound per request: with the MongoDB client's own timeouts at 60 s and a lock wait of
 * 30 s, only the request deadline (2 s) can end a request on a stalled server. Every strategy
 * and route must answer 503 with Retry-After within the deadline + 1 s (asserted with 0.5 s
 * more for a loaded machine), whether the stall hits its first read or its lock.
 */
class ServeRequestDeadlineTest {
  private static final Duration DEADLINE = Duration.ofSeconds(2);
  private static final Duration BOUND = DEADLINE.plusMillis(1500);

  private StallingProxy proxy;
  private MongoClient client;
  private ServeFixture serve;

  @BeforeEach
  void start() throws Exception {
    ServerAddress target = new ServerAddress(
        new ConnectionString(TestMongo.uri()).getHosts().get(0));
    proxy = new StallingProxy(target.getHost(), target.getPort());
    client = MongoClients.create(MongoTarget.settings(new ConnectionString(
        "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true"), 16,
        Duration.ofSeconds(60)));
    serve = new ServeFixture(client.getDatabase("wg_ServeDeadline_" + System.nanoTime()),
        b -> b.lockWait(Duration.ofSeconds(30)),
        ServeConfig.builder().port(0).requestDeadline(DEADLINE).build());
  }

  @AfterEach
  void stop() {
    serve.close();
    client.close();
    proxy.close();
  }

  @Test
  void everyRequestOnAStalledMongoIsAnsweredWithinItsDeadline() {
    String id = serve.createDocument(1, 1, 2);
    proxy.stall();
    for (String strategy : new String[] {"atomic", "optimistic", "mongo-lock", "adaptive"}) {
      long start = System.nanoTime();
      HttpResponse<String> r = serve.mark(id, "k0", "s0", "0", "u-" + strategy, strategy);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took).as(strategy + " answered " + r.statusCode() + " after " + took)
          .isLessThan(BOUND);
      assertThat(r.statusCode()).as(strategy + ": " + r.body()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).as(strategy).isPresent();
      // The server's own time covers the wait for the stalled server and no more than the
      // client saw: the header tells a slow answer's work apart from its trip.
      assertThat(serverMillis(r)).as(strategy)
          .isGreaterThanOrEqualTo(DEADLINE.toMillis() - 1.0)
          .isLessThanOrEqualTo(took.toNanos() / 1e6);
    }
    long start = System.nanoTime();
    assertThat(serve.get("/docs/" + id, "reader").statusCode()).isEqualTo(503);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
  }

  @Test
  void theServerTimingHeaderGivesMillisecondsToATenth() {
    assertThat(ReadInfoApi.serverTiming(1_234_567)).isEqualTo("app;dur=1.2");
    assertThat(ReadInfoApi.serverTiming(10_250_000_000L)).isEqualTo("app;dur=10250.0");
    assertThat(ReadInfoApi.serverTiming(0)).isEqualTo("app;dur=0.0");
  }

  /** The milliseconds of the answer's {@code Server-Timing: app;dur=<ms>}. */
  static double serverMillis(HttpResponse<?> r) {
    String value = r.headers().firstValue(ReadInfoApi.SERVER_TIMING).orElseThrow();
    assertThat(value).startsWith("app;dur=");
    return Double.parseDouble(value.substring("app;dur=".length()));
  }

  @Test
  void aRequestDeadlineThatIsNotPositiveOrTooLongIsRefusedNamingIt() {
    for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofHours(2)}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> ServeConfig.builder().requestDeadline(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("requestDeadline");
    }
  }
}
