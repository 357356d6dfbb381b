package io.writeguard.app;

import com.mongodb.MongoException;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.cli.MongoOptions;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.cli.UsageException;
import io.writeguard.internal.Checks;
import io.writeguard.version.AuditReport;
import io.writeguard.version.FixReport;
import io.writeguard.version.VersionAuditException;
import io.writeguard.version.VersionAuditor;
import io.writeguard.version.VersionFinding;
import io.writeguard.version.VersionProblem;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writeguard audit}: lists documents whose version field is missing, null, not an int64
 * or negative, and with {@code --fix} repairs the ones that have one safe meaning. The work is
 * done by {@link VersionAuditor}; this class validates the options and prints the report.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Scans a collection for documents whose version field is missing, null, not an int64,"
          + " or negative, and counts them per kind.",
      "With --fix, repairs what has one safe meaning (missing/null -> 0, a string of digits,"
          + " an integral double or an int32 -> that int64), each with a filter on the exact"
          + " value and type it read, so a concurrent writer is never overwritten. Everything"
          + " else is reported and left for a person.",
      "Needs --mongo-uri or $MONGODB_URI (an embedded server would be empty)."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:the collection is clean (after fixing)",
      "1:documents with a bad version remain",
      "2:usage or connection error (bad options write nothing)"
    })
public final class AuditCommand implements Callable<Integer> {
  private static final String DB_FORBIDDEN = "/\\. \"$*<>:|?";

  @Mixin MongoOptions mongo;

  @Spec CommandSpec spec;

  @Option(names = "--db", required = true, paramLabel = "DB", description = "Database name.")
  String db;

  @Option(names = "--collection", required = true, paramLabel = "C",
      description = "Collection name.")
  String collection;

  @Option(names = "--version-field", defaultValue = VersionAuditor.DEFAULT_VERSION_FIELD,
      paramLabel = "FIELD", description = "Top-level version field (default: ${DEFAULT-VALUE}).")
  String versionField;

  @Option(names = "--fix", description = "Repair what has one safe meaning, then re-scan.")
  boolean fix;

  @Option(names = "--max-ids", defaultValue = "10", paramLabel = "N",
      description = "Offending _ids listed per kind (default: ${DEFAULT-VALUE}).")
  int maxIds;

  @Override
  public Integer call() {
    validate();
    if (mongo.uri() == null) {
      throw new UsageException("audit needs --mongo-uri or MONGODB_URI: an embedded server"
          + " started for this run would be empty");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (MongoTarget target = mongo.open(2)) {
      MongoDatabase database = target.client().getDatabase(db);
      requireCollection(database, target);
      VersionAuditor auditor = VersionAuditor.builder(database.getCollection(collection))
          .versionField(versionField)
          .sampleLimit(maxIds)
          .build();
      out.printf("Auditing %s.%s at %s, version field '%s'%n",
          db, collection, target.displayUri(), versionField);
      AuditReport result;
      if (fix) {
        FixReport report = auditor.fix();
        printFound(out, report.found(), report);
        printFixSummary(out, report);
        result = auditor.scan();
        out.printf("After fixing: %s%n", summary(result));
      } else {
        result = auditor.scan();
        printFound(out, result, null);
      }
      out.println(result.isClean()
          ? "Result: clean."
          : "Result: " + result.problems() + " document(s) still have a bad version.");
      out.flush();
      return result.isClean() ? 0 : 1;
    } catch (VersionAuditException | MongoException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  private void validate() {
    if (db == null || db.isEmpty()) {
      throw new UsageException("--db must not be empty");
    }
    for (char c : DB_FORBIDDEN.toCharArray()) {
      if (db.indexOf(c) >= 0) {
        throw new UsageException("--db " + Checks.quote(db) + " is not a database name: it"
            + " contains '" + c + "' (none of " + DB_FORBIDDEN + " or NUL is allowed)");
      }
    }
    if (db.indexOf('\0') >= 0 || db.getBytes(StandardCharsets.UTF_8).length > 63) {
      throw new UsageException("--db " + Checks.quote(db) + " is not a database name:"
          + " it must be at most 63 bytes without NUL");
    }
    if (collection == null || collection.isEmpty()) {
      throw new UsageException("--collection must not be empty");
    }
    if (collection.indexOf('$') >= 0 || collection.indexOf('\0') >= 0) {
      throw new UsageException("--collection " + Checks.quote(collection)
          + " is not a collection name: it must not contain '$' or NUL");
    }
    if (collection.startsWith("system.")) {
      throw new UsageException("--collection " + Checks.quote(collection)
          + " is a system collection; audit application collections only");
    }
    try {
      VersionAuditor.checkVersionField(versionField);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--version-field: " + e.getMessage(), e);
    }
    if (maxIds < 0) {
      throw new UsageException("--max-ids must be >= 0, was " + maxIds);
    }
  }

  /** A misspelt name would otherwise audit nothing and report "clean". */
  private void requireCollection(MongoDatabase database, MongoTarget target) {
    for (String name : database.listCollectionNames()) {
      if (name.equals(collection)) {
        return;
      }
    }
    throw new UsageException("no collection '" + collection + "' in database '" + db + "' at "
        + target.displayUri());
  }

  private static String summary(AuditReport r) {
    long bad = r.problems();
    return r.scanned() + " document(s) read, " + (r.scanned() - bad) + " healthy, " + bad
        + " with a bad version (" + r.fixable() + " fixable, " + r.needsPerson()
        + " need a person)";
  }

  private void printFound(PrintWriter out, AuditReport r, FixReport fixed) {
    out.println(summary(r) + ".");
    if (r.isClean()) {
      return;
    }
    out.println();
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"KIND", "COUNT", fixed == null ? "REPAIR" : "DONE",
        "FIRST _IDS (_id=version)"});
    for (VersionProblem p : VersionProblem.values()) {
      long n = r.count(p);
      if (n > 0) {
        rows.add(new String[] {p.name(), Long.toString(n),
            fixed == null ? repair(p) : done(p, fixed), ids(r, p)});
      }
    }
    out.print(table(rows));
    out.println();
  }

  /**
   * Rows as text columns two spaces apart, each as wide as its longest cell: the second column
   * (counts) right-aligned, the others left-aligned, the last one not padded. Every line starts
   * with two spaces and ends with a newline.
   */
  static String table(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        String pad = " ".repeat(width[c] - row[c].length());
        line.append("  ");
        if (c == 1) {
          line.append(pad).append(row[c]);
        } else {
          line.append(row[c]).append(c == columns - 1 ? "" : pad);
        }
      }
      text.append(line).append('\n');
    }
    return text.toString();
  }

  private static String repair(VersionProblem p) {
    if (!p.fixable()) {
      return "needs a person (" + p.description() + ")";
    }
    return p == VersionProblem.MISSING || p == VersionProblem.NULL ? "--fix sets 0" : "--fix converts to int64";
  }

  private static String done(VersionProblem p, FixReport f) {
    if (!p.fixable()) {
      return "left for a person";
    }
    StringBuilder s = new StringBuilder().append(f.fixed(p)).append(" fixed");
    if (f.changedConcurrently(p) > 0) {
      s.append(", ").append(f.changedConcurrently(p)).append(" changed meanwhile");
    }
    if (f.notAppliedByServer(p) > 0) {
      s.append(", ").append(f.notAppliedByServer(p)).append(" not applied by server");
    }
    return s.toString();
  }

  private static String ids(AuditReport r, VersionProblem p) {
    List<VersionFinding> samples = r.samples(p);
    StringBuilder s = new StringBuilder();
    for (VersionFinding f : samples) {
      if (s.length() > 0) {
        s.append(", ");
      }
      s.append(f.idText());
      if (p != VersionProblem.MISSING) {
        s.append('=').append(f.valueText());
      }
    }
    long more = r.count(p) - samples.size();
    if (more > 0) {
      s.append(s.length() > 0 ? ", " : "").append("... ").append(more).append(" more");
    }
    return s.toString();
  }

  private static void printFixSummary(PrintWriter out, FixReport f) {
    out.printf("Fixed %d; left alone because they changed after the read: %d;"
        + " left for a person: %d.%n", f.fixed(), f.changedConcurrently(), f.needsPerson());
    if (f.notAppliedByServer() > 0) {
      out.printf("Not applied by the server: %d (it matched the exact value and type but kept"
          + " the old number type, and the guarded whole-document replace could not convert"
          + " it either; see docs/paths-and-version-audit.md).%n", f.notAppliedByServer());
    }
  }
}
