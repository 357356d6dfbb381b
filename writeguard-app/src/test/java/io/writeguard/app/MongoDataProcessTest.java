package io.writeguard.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.update.Mutation;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code writeguard mongo --data DIR} as a separate JVM: acknowledged inserts and versioned
 * updates, then the process is killed (SIGKILL, no shutdown hook runs), and a new process on
 * the same directory has every one of them.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class MongoDataProcessTest {
  private static final int DOCS = 20;
  private static final int UPDATES_PER_DOC = 10;

  @TempDir Path tmp;
  private Process process;

  @AfterEach
  void kill() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private String launch(Path data) throws IOException {
    process = new ProcessBuilder(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dlogback.configurationFile=logback.xml",
            "-cp", System.getProperty("java.class.path"),
            Main.class.getName(), "mongo", "--port", "0", "--data", data.toString()))
        .redirectError(tmp.resolve("stderr-" + System.nanoTime() + ".txt").toFile())
        .start();
    BufferedReader stdout = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String uri = stdout.readLine();
    assertThat(uri).as("the URI line").startsWith("mongodb://127.0.0.1:");
    return uri;
  }

  @Test
  void everyAcknowledgedWriteSurvivesAKillAndARestart() throws Exception {
    Path data = tmp.resolve("data");
    String uri = launch(data);
    try (MongoClient client = MongoClients.create(uri)) {
      MongoCollection<Document> docs = client.getDatabase("durable").getCollection("docs");
      VersionedUpdater updater = VersionedUpdater.builder(docs).build();
      for (int d = 0; d < DOCS; d++) {
        VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
            new Document("_id", "d" + d).append("n", 0L));
        for (int u = 0; u < UPDATES_PER_DOC; u++) {
          updater.updateOne("d" + d, current -> Mutation.update(Updates.inc("n", 1L)));
        }
      }
    }
    process.destroyForcibly(); // SIGKILL: nothing is flushed on the way out
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

    String again = launch(data);
    try (MongoClient client = MongoClients.create(again)) {
      MongoCollection<Document> docs = client.getDatabase("durable").getCollection("docs");
      assertThat(docs.countDocuments()).isEqualTo(DOCS);
      for (int d = 0; d < DOCS; d++) {
        Document doc = docs.find(Filters.eq("_id", "d" + d)).first();
        assertThat(doc.getLong("n")).as("d%d", d).isEqualTo(UPDATES_PER_DOC);
        assertThat(doc.getLong("version")).isEqualTo(UPDATES_PER_DOC);
      }
    }
  }
}
