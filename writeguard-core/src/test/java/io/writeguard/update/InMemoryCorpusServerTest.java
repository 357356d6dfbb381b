package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * The fidelity corpus against the test server (the embedded one unless {@code MONGODB_URI}
 * names another): prints every case where that server's result differs from MongoDB's
 * expected one, and what {@link InMemoryUpdate} makes of each. It does not fail on them: the
 * embedded server is not the oracle, and {@code docs/embedded.md} lists where it departs from
 * MongoDB. It fails only when it could not run the corpus at all.
 */
class InMemoryCorpusServerTest {
  private static final MongoCollection<BsonDocument> DOCS = TestMongo
      .freshDatabase("InMemoryCorpus").getCollection("docs", BsonDocument.class);

  record Difference(String name, String update, String doc, String mongodb, String server,
      InMemoryUpdateCorpusTest.Outcome model) {}

  @Test
  void printsWhereTheTestServerDiffersFromMongoDB() {
    List<InMemoryCorpus.Case> cases = InMemoryCorpus.load();
    List<Difference> differences = new ArrayList<>();
    for (InMemoryCorpus.Case c : cases) {
      String server = onServer(c);
      if (server != null) {
        differences.add(new Difference(c.name(), InMemoryCorpus.json(c.update()),
            InMemoryCorpus.json(c.doc()),
            c.expected() != null ? InMemoryCorpus.json(c.expected()) : "error " + c.error(),
            server, InMemoryUpdateCorpusTest.run(c).outcome()));
      }
    }
    System.out.printf("corpus on %s: %d cases, %d differ from MongoDB%n",
        TestMongo.isEmbedded() ? "the embedded server" : TestMongo.uri(), cases.size(),
        differences.size());
    System.out.println("| case | document | update | MongoDB | this server | InMemoryUpdate |");
    System.out.println("|---|---|---|---|---|---|");
    for (Difference d : differences) {
      System.out.printf("| %s | `%s` | `%s` | %s | %s | %s |%n", d.name(), d.doc(), d.update(),
          code(d.mongodb()), code(d.server()), d.model());
    }
    assertThat(cases).hasSizeGreaterThanOrEqualTo(150);
  }

  private static String code(String s) {
    return s.startsWith("{") ? "`" + s + "`" : s;
  }

  /** Null when the server agrees with MongoDB; else what it did. */
  private static String onServer(InMemoryCorpus.Case c) {
    DOCS.deleteMany(new BsonDocument());
    BsonDocument stored = new BsonDocument();
    boolean addedId = !c.doc().containsKey("_id");
    if (addedId) {
      stored.put("_id", new BsonInt32(1));
    }
    for (Map.Entry<String, BsonValue> field : c.doc().entrySet()) {
      stored.put(field.getKey(), field.getValue());
    }
    try {
      DOCS.insertOne(stored);
    } catch (RuntimeException e) { // the embedded server's replies do not always parse
      return "refuses to store the document (" + brief(e) + ")";
    }
    BsonValue id = stored.get("_id");
    String error = null;
    try {
      DOCS.updateOne(Filters.eq("_id", id), c.update());
    } catch (RuntimeException e) { // the embedded server's replies do not always parse
      error = brief(e);
    }
    if (error != null) {
      return c.error() != null ? null : "error " + error;
    }
    BsonDocument after = DOCS.find().first();
    if (after == null) {
      return "lost the document";
    }
    if (addedId && after.containsKey("_id") && after.get("_id").equals(id)) {
      after.remove("_id");
    }
    if (c.error() != null) {
      return "no error: " + InMemoryCorpus.json(after);
    }
    return InMemoryCorpus.exactlyEqual(after, c.expected()) ? null
        : InMemoryCorpus.json(after);
  }

  private static String brief(RuntimeException e) {
    String m = e.getMessage() == null ? "" : e.getMessage().replace('\n', ' ').replace("|", "/");
    String what = e instanceof MongoException me ? Integer.toString(me.getCode())
        : e.getClass().getSimpleName();
    return what + (m.length() > 90 ? ": " + m.substring(0, 90) + "..." : ": " + m);
  }
}
