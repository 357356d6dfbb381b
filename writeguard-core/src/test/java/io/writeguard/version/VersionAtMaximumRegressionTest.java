package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.VersionedUpdater;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: a version of Long.MAX_VALUE passed the audit, and {@code fix()} turned the string
 * "9223372036854775807" into it; every versioned update then refused the document, with a
 * message saying to run the audit's fix. A version at which the next update would overflow
 * (the policy's claims refuse {@code Long.MAX_VALUE - 1} as well: a claim and its write are two
 * increments) is unusable: the audit reports it, and the fix never writes one.
 */
class VersionAtMaximumRegressionTest {
  private final MongoCollection<BsonDocument> docs =
      TestMongo.freshDatabase("VersionAtMax").getCollection("docs", BsonDocument.class);

  @Test
  void versionsAtTheMaximumAreReportedAndNeverWrittenByTheFix() {
    insert(1, new BsonInt64(Long.MAX_VALUE));
    insert(2, new BsonInt64(Long.MAX_VALUE - 1));
    insert(3, new BsonString("9223372036854775807"));
    insert(4, new BsonString("9223372036854775806"));
    insert(5, new BsonInt64(Long.MAX_VALUE - 2)); // one update left: usable
    insert(6, new BsonString("9223372036854775805")); // fixable to a usable version

    VersionAuditor auditor = VersionAuditor.builder(docs).build();
    AuditReport report = auditor.scan();
    assertThat(report.counts().get(VersionProblem.AT_MAXIMUM)).isEqualTo(4);
    assertThat(report.counts().get(VersionProblem.DIGIT_STRING)).isEqualTo(1);
    assertThat(VersionProblem.AT_MAXIMUM.fixable()).isFalse();

    auditor.fix();
    assertThat(version(1)).isEqualTo(new BsonInt64(Long.MAX_VALUE));
    assertThat(version(3)).as("left for a person").isEqualTo(new BsonString("9223372036854775807"));
    assertThat(version(4)).isEqualTo(new BsonString("9223372036854775806"));
    assertThat(version(6)).isEqualTo(new BsonInt64(Long.MAX_VALUE - 2));
    assertThat(auditor.scan().counts().get(VersionProblem.AT_MAXIMUM)).isEqualTo(4);
  }

  @Test
  void aFixedVersionTakesItsLastUpdateAndIsThenReportedUnusable() {
    insert(7, new BsonString("9223372036854775805"));
    VersionAuditor auditor = VersionAuditor.builder(docs).build();
    auditor.fix();
    MongoCollection<Document> plain = docs.withDocumentClass(Document.class);
    VersionedUpdater.builder(plain).build()
        .update(7, doc -> Mutation.replace(new Document(doc).append("n", 1)));
    assertThat(version(7)).isEqualTo(new BsonInt64(Long.MAX_VALUE - 1));
    assertThat(auditor.scan().counts().get(VersionProblem.AT_MAXIMUM)).isEqualTo(1);
  }

  @Test
  void theRefusalOfAVersionAtTheMaximumDoesNotSendThePersonToTheFix() {
    insert(8, new BsonInt64(Long.MAX_VALUE));
    MongoCollection<Document> plain = docs.withDocumentClass(Document.class);
    assertThatThrownBy(() -> VersionedUpdater.builder(plain).build()
        .update(8, doc -> Mutation.replace(new Document(doc).append("n", 1))))
        .isInstanceOf(InvalidVersionException.class)
        .hasMessageContaining("AT_MAXIMUM").hasMessageNotContaining("repair with");
    assertThat(version(8)).isEqualTo(new BsonInt64(Long.MAX_VALUE));
  }

  private BsonValue version(int id) {
    return docs.find(eq("_id", id)).first().get("version");
  }

  private void insert(int id, BsonValue version) {
    docs.insertOne(new BsonDocument("_id", new BsonInt32(id)).append("version", version));
  }
}
