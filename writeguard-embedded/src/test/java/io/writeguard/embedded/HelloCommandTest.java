package io.writeguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.ServerApi;
import com.mongodb.ServerApiVersion;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The handshake commands clients send: {@code hello}, {@code isMaster}, {@code ping}, {@code buildInfo}. */
class HelloCommandTest {
  private static EmbeddedMongo mongo;
  private static MongoClient client;

  @BeforeAll
  static void startServer() {
    mongo = EmbeddedMongo.start();
    client = MongoClients.create(mongo.uri());
  }

  @AfterAll
  static void stopServer() {
    client.close();
    mongo.close();
  }

  @Test
  void helloAnswersAsAWritableStandalonePrimary() {
    for (String database : List.of("admin", "app")) {
      Document hello = client.getDatabase(database).runCommand(new Document("hello", 1));

      assertThat(hello.get("ok")).isEqualTo(1.0);
      assertThat(hello.getBoolean("isWritablePrimary")).isTrue();
      assertThat(hello).doesNotContainKeys("ismaster", "isMaster");
      assertThat(hello.getInteger("maxWireVersion")).isEqualTo(ReportedVersion.WIRE_VERSION);
      assertThat(hello.getInteger("minWireVersion")).isZero();
      assertThat(hello.getInteger("maxBsonObjectSize")).isEqualTo(16 * 1024 * 1024);
      assertThat(hello.getInteger("maxMessageSizeBytes")).isEqualTo(48_000_000);
      // mongo-java-server's own limit (MongoDB says 100,000); drivers split batches to fit it.
      assertThat(hello.getInteger("maxWriteBatchSize")).isEqualTo(1_000);
      assertThat(hello.get("localTime")).isInstanceOf(Date.class);
      // Still a standalone server without sessions, as the isMaster reply says.
      assertThat(hello).doesNotContainKeys("logicalSessionTimeoutMinutes", "setName", "msg");
    }
  }

  @Test
  void helloCarriesWhatIsMasterCarriesUnderTheNewName() {
    MongoDatabase admin = client.getDatabase("admin");
    Document isMaster = admin.runCommand(new Document("isMaster", 1));
    Document hello = admin.runCommand(new Document("hello", 1));

    assertThat(isMaster.getBoolean("ismaster")).isTrue();
    isMaster.remove("ismaster");
    hello.remove("isWritablePrimary");
    isMaster.remove("localTime");
    hello.remove("localTime");
    assertThat(hello).isEqualTo(isMaster);
  }

  @Test
  void theCommandNameIsCaseSensitiveAsOnMongoDb() {
    assertThatThrownBy(() -> client.getDatabase("admin").runCommand(new Document("HELLO", 1)))
        .isInstanceOfSatisfying(
            MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(59));
  }

  @Test
  void pingAndBuildInfoAnswer() {
    MongoDatabase admin = client.getDatabase("admin");
    assertThat(admin.runCommand(new Document("ping", 1)).get("ok")).isEqualTo(1.0);

    Document buildInfo = admin.runCommand(new Document("buildInfo", 1));
    assertThat(buildInfo.get("ok")).isEqualTo(1.0);
    assertThat(buildInfo.getString("version")).isEqualTo("5.0.0");
    assertThat(buildInfo.getList("versionArray", Integer.class)).startsWith(5, 0, 0);
  }

  @Test
  void aClientDeclaringAStableApiVersionHandshakesWithHelloAndWorks() {
    // The Java driver handshakes with hello (not isMaster) when a server API version is set.
    MongoClientSettings settings =
        MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString(mongo.uri()))
            .serverApi(ServerApi.builder().version(ServerApiVersion.V1).build())
            .build();
    try (MongoClient versioned = MongoClients.create(settings)) {
      MongoCollection<Document> docs = versioned.getDatabase("app").getCollection("stableApi");
      docs.insertOne(new Document("_id", 1).append("version", 0L));
      assertThat(
              docs.updateOne(
                      new Document("_id", 1).append("version", 0L),
                      new Document("$inc", new Document("version", 1L)))
                  .getModifiedCount())
          .isOne();
      assertThat(docs.find().first()).isEqualTo(new Document("_id", 1).append("version", 1L));
    }
  }
}
