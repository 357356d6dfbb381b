package io.writeguard.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The retry-storm warning under real contention, and its absence without it. */
class RetryStormTest {
  private final MongoCollection<Document> docs = TestMongo.freshDatabase("Storm").getCollection("docs");
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger monitorLog = (Logger) LoggerFactory.getLogger(ConflictMonitor.class);

  @BeforeEach
  void captureLog() {
    log.start();
    monitorLog.addAppender(log);
  }

  @AfterEach
  void release() {
    monitorLog.detachAppender(log);
  }

  private ConflictMonitor monitor() {
    // a long window so a slow machine still sees the whole run in it
    return ConflictMonitor.builder().window(Duration.ofSeconds(60), 6).minAttempts(50).build();
  }

  private long run(ConflictMonitor monitor, int threads, int perThread) throws Exception {
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("n", 0L));
    // Group commit off: it would combine these writers and leave no storm to detect.
    VersionedUpdater updater = VersionedUpdater.builder(docs)
        .groupCommit(false)
        .listener(monitor)
        .retryPolicy(RetryPolicy.builder().maxAttempts(500).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build())
        .build();
    Concurrently.run(threads, Duration.ofSeconds(120), thread -> {
      for (int i = 0; i < perThread; i++) {
        updater.update("hot", d -> Mutation.update(
            Updates.set("n", d.get("n", Number.class).longValue() + 1)));
      }
    });
    return docs.find(new Document("_id", "hot")).first().get("n", Number.class).longValue();
  }

  private List<String> stormWarnings() {
    return log.list.stream()
        .filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().startsWith("retry storm"))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void sixteenWritersOnOneDocumentRaiseOneWarningWithAdvice() throws Exception {
    ConflictMonitor monitor = monitor();
    long total = run(monitor, 16, 25);
    assertThat(total).isEqualTo(400);
    OperationScope scope = new OperationScope("docs", "optimistic");
    assertThat(monitor.scope(scope).conflictRatio()).isGreaterThan(0.10);
    assertThat(stormWarnings()).hasSize(1);
    assertThat(stormWarnings().get(0))
        .contains("collection 'docs'", "hottest keys: hot", "Advice: serialise writers");
  }

  @Test
  void oneWriterRaisesNone() throws Exception {
    ConflictMonitor monitor = monitor();
    assertThat(run(monitor, 1, 200)).isEqualTo(200);
    assertThat(monitor.scope(new OperationScope("docs", "optimistic")).conflicts()).isZero();
    assertThat(stormWarnings()).isEmpty();
  }
}
