package io.writeguard.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AuditCommandTest {
  private static final ObjectId OID = new ObjectId("65f000000000000000000001");

  private MongoDatabase database;
  private MongoCollection<BsonDocument> docs;
  private String out;
  private String err;

  @BeforeEach
  void seedEveryKindOfBadVersion() {
    database = TestMongo.freshDatabase("AuditCommand");
    docs = database.getCollection("docs", BsonDocument.class);
    insert(docs, 1, null); // missing
    insert(docs, 2, BsonNull.VALUE);
    insert(docs, 3, new BsonString("12"));
    insert(docs, 4, new BsonString("abc"));
    insert(docs, 5, new BsonDouble(3.0));
    insert(docs, 6, new BsonDouble(2.5));
    insert(docs, 7, new BsonInt64(-1));
    insert(docs, 8, new BsonInt32(7));
    insert(docs, 9, new BsonInt64(4)); // healthy
    insert(docs, 10, new BsonObjectId(OID));
    insert(docs, 11, BsonBoolean.TRUE);
    insert(docs, 12, new BsonArray(List.of(new BsonInt64(1))));
  }

  @Test
  void auditCountsEveryKindListsIdsAndExitsOne() {
    int code = run("audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "docs");
    assertThat(code).as(err).isEqualTo(1);
    assertThat(out)
        .contains("12 document(s) read, 1 healthy, 11 with a bad version (5 fixable, 6 need a person)")
        .containsPattern("MISSING +1 +--fix sets 0 +1\n")
        .containsPattern("NULL +1 +--fix sets 0 +2=null\n")
        .containsPattern("INT32 +1 +--fix converts to int64 +8=7\n")
        .containsPattern("INTEGRAL_DOUBLE +1 .* 5=3.0\n")
        .containsPattern("DIGIT_STRING +1 .* 3=\"12\"\n")
        .containsPattern("NEGATIVE +1 +needs a person \\(negative\\) +7=NumberLong\\(-1\\)\n")
        .containsPattern("FRACTIONAL +1 .* 6=2.5\n")
        .containsPattern("OTHER_STRING +1 .* 4=\"abc\"\n")
        .containsPattern("OTHER_TYPE +3 .* 10=ObjectId\\(\"65f000000000000000000001\"\\), 11=true, 12=\\[")
        .contains("Result: 11 document(s) still have a bad version.");
    assertThat(docs.find(eq("_id", 1)).first().containsKey("version")).as("audit writes nothing").isFalse();
  }

  @Test
  void maxIdsCapsTheListButNotTheCount() {
    run("audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "docs", "--max-ids", "1");
    assertThat(out).containsPattern("OTHER_TYPE +3 .* 10=ObjectId\\(\"65f000000000000000000001\"\\), \\.\\.\\. 2 more\n");
  }

  @Test
  void fixRepairsTheSafeKindsReportsTheRestAndExitsOneWhileProblemsRemain() {
    int code = run("audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "docs", "--fix");
    assertThat(code).as(err).isEqualTo(1);
    assertThat(out)
        .containsPattern("MISSING +1 +1 fixed ")
        .containsPattern("NULL +1 +1 fixed ")
        .containsPattern("DIGIT_STRING +1 +1 fixed ")
        .containsPattern("NEGATIVE +1 +left for a person ")
        .contains("left for a person: 6.");
    assertThat(version(1)).isEqualTo(new BsonInt64(0));
    assertThat(version(2)).isEqualTo(new BsonInt64(0));
    assertThat(version(3)).isEqualTo(new BsonInt64(12));
    assertThat(version(4)).isEqualTo(new BsonString("abc"));
    assertThat(version(7)).isEqualTo(new BsonInt64(-1));
    // converted on every server (the embedded one by the guarded whole-document replace)
    assertThat(out).containsPattern("INT32 +1 +1 fixed ")
        .containsPattern("INTEGRAL_DOUBLE +1 +1 fixed ")
        .doesNotContain("not applied")
        .contains("After fixing: 12 document(s) read, 6 healthy, 6 with a bad version");
    assertThat(version(5)).isEqualTo(new BsonInt64(3));
    assertThat(version(8)).isEqualTo(new BsonInt64(7));
  }

  @Test
  void theTableFitsItsLongestValuesAndRightAlignsCounts() {
    String table = AuditCommand.table(List.of(
        new String[] {"KIND", "COUNT", "DONE", "FIRST _IDS"},
        new String[] {"INT32", "1234567", "1 fixed", "8=7"},
        new String[] {"OTHER_TYPE", "3", "0 fixed, 12 changed meanwhile, 3 not applied by server",
            "10=ObjectId(\"65f000000000000000000001\"), 11=true"}));
    assertThat(table).isEqualTo(
        "  KIND          COUNT  DONE                                                    FIRST _IDS\n"
      + "  INT32       1234567  1 fixed                                                 8=7\n"
      + "  OTHER_TYPE        3  0 fixed, 12 changed meanwhile, 3 not applied by server"
      + "  10=ObjectId(\"65f000000000000000000001\"), 11=true\n");
  }

  @Test
  void theRealTableLinesUpEveryColumn() {
    run("audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "docs");
    List<String> lines = out.lines().filter(l -> l.startsWith("  ")).toList();
    assertThat(lines).hasSize(10); // header + 9 kinds
    int ids = lines.get(0).indexOf("FIRST _IDS");
    int countEnd = lines.get(0).indexOf("COUNT") + "COUNT".length();
    for (String line : lines.subList(1, lines.size())) {
      assertThat(line.charAt(countEnd - 1)).as(line).isBetween('0', '9');
      assertThat(line.charAt(countEnd)).as(line).isEqualTo(' ');
      assertThat(line.charAt(ids - 1)).as(line).isEqualTo(' ');
      assertThat(line.charAt(ids)).as(line).isNotEqualTo(' ');
    }
  }

  @Test
  void fixOnACollectionWithOnlySafeProblemsLeavesItCleanAndExitsZero() {
    MongoCollection<BsonDocument> safe = database.getCollection("safe", BsonDocument.class);
    insert(safe, 1, null);
    insert(safe, 2, BsonNull.VALUE);
    insert(safe, 3, new BsonString("0042"));
    insert(safe, 4, new BsonInt64(9));
    String[] args = {"audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "safe", "--version-field", "version"};
    assertThat(run(args)).isEqualTo(1);
    assertThat(run(append(args, "--fix"))).as(err).isEqualTo(0);
    assertThat(out).contains("Fixed 3; left alone because they changed after the read: 0;")
        .contains("Result: clean.");
    assertThat(run(args)).isEqualTo(0);
    assertThat(out).contains("4 document(s) read, 4 healthy, 0 with a bad version");
    assertThat(safe.find(eq("_id", 3)).first().get("version")).isEqualTo(new BsonInt64(42));
  }

  /** Issue 35: --fix turned "9223372036854775807" into a version no update can raise. */
  @Test
  void fixNeverWritesAVersionTheNextUpdateCannotRaise() {
    MongoCollection<BsonDocument> max = database.getCollection("max", BsonDocument.class);
    insert(max, 1, new BsonString("9223372036854775807"));
    insert(max, 2, new BsonInt64(Long.MAX_VALUE));
    String[] args = {"audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "max", "--fix"};
    assertThat(run(args)).as(err).isEqualTo(1);
    assertThat(out).containsPattern("AT_MAXIMUM +2 +left for a person ");
    assertThat(max.find(eq("_id", 1)).first().get("version"))
        .isEqualTo(new BsonString("9223372036854775807"));
  }

  @Test
  void anotherVersionFieldIsAudited() {
    MongoCollection<BsonDocument> revs = database.getCollection("revs", BsonDocument.class);
    revs.insertOne(BsonDocument.parse("{_id: 1, rev: {$numberLong: '3'}, version: 'junk'}"));
    assertThat(run("audit", "--mongo-uri", TestMongo.uri(), "--db", database.getName(),
        "--collection", "revs", "--version-field", "rev")).isEqualTo(0);
  }

  // ---- bad input: one line naming the value, exit 2, nothing written ----

  @Test
  void badNamesAreUsageErrorsAndWriteNothing() {
    String uri = TestMongo.uri();
    String dbName = database.getName();
    assertUsage("--db 'a.b' is not a database name: it contains '.'",
        "audit", "--mongo-uri", uri, "--db", "a.b", "--collection", "docs", "--fix");
    assertUsage("--db must not be empty",
        "audit", "--mongo-uri", uri, "--db", "", "--collection", "docs", "--fix");
    assertUsage("--collection '$cmd' is not a collection name",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "$cmd", "--fix");
    assertUsage("--collection 'system.users' is a system collection",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "system.users");
    assertUsage("--version-field: versionField must be a top-level field name, was '$inc'",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "docs",
        "--version-field", "$inc", "--fix");
    assertUsage("--version-field: versionField must be a top-level field name, was 'a.b'",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "docs",
        "--version-field", "a.b", "--fix");
    assertUsage("--version-field: versionField must not be '_id'",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "docs",
        "--version-field", "_id", "--fix");
    assertUsage("--max-ids must be >= 0, was -1",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "docs", "--max-ids", "-1");
    assertUsage("no collection 'dcos' in database '" + dbName + "'",
        "audit", "--mongo-uri", uri, "--db", dbName, "--collection", "dcos", "--fix");
    assertThat(version(1)).as("nothing written").isNull();
    assertThat(docs.find(eq("_id", 1)).first().containsKey("version")).isFalse();
  }

  @Test
  void missingOptionsAreUsageErrors() {
    assertThat(run("audit", "--mongo-uri", TestMongo.uri(), "--collection", "docs")).isEqualTo(2);
    assertThat(err).contains("Missing required option: '--db=DB'");
    assertThat(run("audit", "--mongo-uri", TestMongo.uri(), "--db", "x", "--collection", "c",
        "--max-ids", "ten")).isEqualTo(2);
    assertThat(err).contains("'ten'");
  }

  @Test
  void withoutAUriAuditRefusesToStartAnEmptyEmbeddedServer() {
    assumeThat(System.getenv("MONGODB_URI")).as("MONGODB_URI is set").isNull();
    assertUsage("audit needs --mongo-uri or MONGODB_URI",
        "audit", "--db", "x", "--collection", "docs");
  }

  @Test
  void malformedOrUnreachableServersAreUsageErrors() {
    assertUsage("malformed MongoDB URI 'not-a-uri'",
        "audit", "--mongo-uri", "not-a-uri", "--db", "x", "--collection", "docs");
    assertUsage("cannot reach MongoDB at 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300'",
        "audit", "--mongo-uri", "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300",
        "--db", "x", "--collection", "docs");
  }

  @Test
  void helpListsTheExitCodes() {
    assertThat(run("audit", "--help")).isZero();
    assertThat(out).contains("--fix", "--version-field", "--max-ids",
        "1   documents with a bad version remain");
  }

  private void assertUsage(String expected, String... args) {
    assertThat(run(args)).as("exit status for %s", String.join(" ", args)).isEqualTo(2);
    assertThat(err).as(err).startsWith("writeguard: " + expected);
    assertThat(err.strip().lines().count()).as("one line: %s", err).isEqualTo(1);
    assertThat(out).isEmpty();
  }

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(o, true));
    cl.setErr(new PrintWriter(e, true));
    int code = cl.execute(args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  private static String[] append(String[] args, String more) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add(more);
    return all.toArray(new String[0]);
  }

  private BsonValue version(int id) {
    return docs.find(eq("_id", id)).first().get("version");
  }

  private static void insert(MongoCollection<BsonDocument> c, int id, BsonValue version) {
    BsonDocument d = new BsonDocument("_id", new BsonInt32(id));
    if (version != null) {
      d.append("version", version);
    }
    c.insertOne(d);
  }
}
