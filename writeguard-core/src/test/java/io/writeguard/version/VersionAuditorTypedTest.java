package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.TypedAccounts;
import io.writeguard.update.TypedAccounts.Account;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The audit of a typed collection reads raw BSON: documents the record codec could not even
 * decode (a string version) are found and fixed through the typed collection handle.
 */
class VersionAuditorTypedTest {
  private final MongoDatabase db = TestMongo.freshDatabase("TypedAudit");
  private final MongoCollection<Account> accounts = TypedAccounts.accounts(db);
  private final MongoCollection<Document> raw = db.getCollection("accounts");

  @Test
  void aTypedCollectionIsAuditedAndFixedAsRawBson() {
    accounts.insertOne(new Account("ok", 1, List.of(), 3L));
    accounts.insertOne(new Account("legacy", 1, List.of(), null));
    raw.insertOne(new Document("_id", "text").append("balance", 1L).append("version", "12"));
    raw.insertOne(new Document("_id", "bad").append("balance", 1L).append("version", -1L));

    VersionAuditor auditor = VersionAuditor.builder(accounts).build();
    AuditReport report = auditor.scan();
    assertThat(report.scanned()).isEqualTo(4);
    assertThat(report.count(VersionProblem.MISSING)).isEqualTo(1);
    assertThat(report.count(VersionProblem.DIGIT_STRING)).isEqualTo(1);
    assertThat(report.count(VersionProblem.NEGATIVE)).isEqualTo(1);

    FixReport fixed = auditor.fix();
    assertThat(fixed.fixed()).isEqualTo(2);
    assertThat(fixed.needsPerson()).isEqualTo(1);
    assertThat(accounts.find(eq("_id", "text")).first().version()).isEqualTo(12L);
    assertThat(accounts.find(eq("_id", "legacy")).first().version()).isEqualTo(0L);
  }
}
