package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 32 users x 8 items x 2 clicks on one document, 16 concurrent HTTP clients, for each strategy
 * that promises no lost update: every acknowledged mark is in the document exactly once, and
 * nothing else is.
 */
class ServeHammerTest {
  private static ServeFixture serve;
  private static final Map<String, String> tokens = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() {
    serve = new ServeFixture("ServeHammer");
  }

  @AfterAll
  static void stop() {
    serve.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"atomic", "optimistic", "local-lock", "mongo-lock", "redis-lock", "adaptive"})
  void everyAcknowledgedMarkIsThereExactlyOnce(String strategy) throws Exception {
    List<MarkHammer.Item> items = MarkHammer.items(2, 2, 4);
    String id = serve.createDocument(2, 2, 4);
    List<MarkHammer.Click> clicks = MarkHammer.clicks(strategy.hashCode(), 32, 8, items);
    MarkHammer hammer = new MarkHammer(List.of(serve.server.url()),
        user -> tokens.computeIfAbsent(user, u -> serve.auth.issue(u, Duration.ofMinutes(10))));

    hammer.run(id, strategy, clicks, 16);

    assertThat(hammer.unexpectedBodies).as("answers other than 200/409/503").isEmpty();
    assertThat(hammer.acknowledged).as("every click answered 200 in the end").hasSize(32 * 8);
    assertThat(hammer.lostMarks(serve.stored(id), items)).as("lost marks").isZero();
    if (strategy.equals("local-lock")) {
      // In one process the lock orders every writer: the version filter never misses.
      // (Across processes it does: ServeProcessTest.)
      assertThat(serve.metrics.scrape()).as("no local-lock conflicts in one process")
          .doesNotContainPattern("writeguard_update_conflicts_total\\{[^}]*strategy=\"local-lock\"[^}]*\\} [1-9]");
    }
  }
}
