package io.writeguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link EmbeddedMongo#start(int, Path)}: data that outlives the server, and bad directories. */
class DurableEmbeddedMongoTest {

  @Test
  void everyAcknowledgedWriteSurvivesAKilledProcess(@TempDir Path dataDirectory) throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                DurableMongoChild.class.getName(),
                dataDirectory.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    int writes = 300;
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      int port = Integer.parseInt(out.readLine().strip());
      try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + port)) {
        MongoCollection<Document> docs = client.getDatabase("durable").getCollection("docs");
        docs.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
        for (int i = 0; i < writes; i++) {
          docs.insertOne(new Document("_id", i).append("version", 0L).append("email", "u" + i));
          // A versioned compare-and-set, acknowledged before the next write.
          assertThat(
                  docs.updateOne(
                          Filters.and(Filters.eq("_id", i), Filters.eq("version", 0L)),
                          Updates.combine(Updates.inc("version", 1L), Updates.set("n", i)))
                      .getModifiedCount())
              .isOne();
        }
        docs.deleteOne(Filters.eq("_id", 0));
      }
    } finally {
      child.destroyForcibly(); // SIGKILL: no shutdown hook, no close of the store
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(child.exitValue()).isNotZero();

    try (EmbeddedMongo mongo = EmbeddedMongo.start(0, dataDirectory);
        MongoClient client = MongoClients.create(mongo.uri())) {
      MongoCollection<Document> docs = client.getDatabase("durable").getCollection("docs");
      assertThat(docs.countDocuments()).isEqualTo(writes - 1);
      assertThat(docs.find(Filters.eq("_id", 0)).first()).isNull();
      for (int i = 1; i < writes; i++) {
        assertThat(docs.find(Filters.eq("_id", i)).first())
            .isEqualTo(
                new Document("_id", i).append("version", 1L).append("email", "u" + i).append("n", i));
      }
      // The unique index came back too.
      assertThatThrownBy(() -> docs.insertOne(new Document("_id", -1).append("email", "u5")))
          .hasMessageContaining("E11000");
    }
  }

  @Test
  void aCleanRestartKeepsTheData(@TempDir Path dataDirectory) {
    try (EmbeddedMongo mongo = EmbeddedMongo.start(0, dataDirectory.resolve("a/b"));
        MongoClient client = MongoClients.create(mongo.uri())) {
      client.getDatabase("d").getCollection("c").insertOne(new Document("_id", 1));
    }
    assertThat(dataDirectory.resolve("a/b").resolve(EmbeddedMongo.DATA_FILE)).isRegularFile();
    try (EmbeddedMongo mongo = EmbeddedMongo.start(0, dataDirectory.resolve("a/b"));
        MongoClient client = MongoClients.create(mongo.uri())) {
      assertThat(client.getDatabase("d").getCollection("c").find().first())
          .isEqualTo(new Document("_id", 1));
    }
  }

  @Test
  void aFileOrAPathThatCannotBeCreatedIsRefusedNamingThePath(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> EmbeddedMongo.start(0, file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the data directory " + file + " is not a directory");
    assertThatThrownBy(() -> EmbeddedMongo.start(0, file.resolve("sub")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cannot create the data directory " + file.resolve("sub") + ": ");
  }

  @Test
  void aDirectoryInUseByAnotherServerIsRefused(@TempDir Path dir) {
    try (EmbeddedMongo first = EmbeddedMongo.start(0, dir)) {
      assertThatThrownBy(() -> EmbeddedMongo.start(0, dir))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("cannot open the data directory " + dir + ": ");
    }
  }
}
