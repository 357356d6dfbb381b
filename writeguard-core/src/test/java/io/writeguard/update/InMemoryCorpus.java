package io.writeguard.update;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * The fidelity corpus ({@code inmemory-corpus.jsonl}): documents, updates and what MongoDB
 * leaves (or the error it answers), one case per line in extended JSON so that BSON types are
 * exact. Shared by the test of the model and the comparison with the embedded server.
 */
final class InMemoryCorpus {
  static final String RESOURCE = "/inmemory-corpus.jsonl";
  /** For messages: shell syntax shows every type ({@code NumberLong(5)}, {@code 5.0}, -0.0). */
  static final JsonWriterSettings SHOWN =
      JsonWriterSettings.builder().outputMode(JsonMode.SHELL).build();

  private InMemoryCorpus() {}

  /** One case: {@code expected} is null exactly when MongoDB answers {@code error}. */
  record Case(String name, String source, BsonDocument doc, BsonDocument update,
      BsonDocument expected, String error) {

    /** The operator the case exercises, or "several operators" when it has more than one. */
    String family() {
      if (update.size() != 1) {
        return "several operators";
      }
      return update.getFirstKey();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> load() {
    List<Case> cases = new ArrayList<>();
    try (InputStream in = InMemoryCorpus.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + RESOURCE);
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        BsonDocument c = BsonDocument.parse(line);
        if (c.containsKey("expected") == c.containsKey("error")) {
          throw new IllegalStateException("line " + number + ": exactly one of expected, error");
        }
        cases.add(new Case(c.getString("name").getValue(), c.getString("source").getValue(),
            c.getDocument("doc"), c.getDocument("update"),
            c.containsKey("expected") ? c.getDocument("expected") : null,
            c.containsKey("error") ? c.getString("error").getValue() : null));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cases;
  }

  /**
   * Equal as MongoDB stores them: {@code BsonDocument.equals} (which ignores field order) and,
   * recursively, the same field order, the same BSON types, doubles by their bits (so -0.0 is
   * not 0.0; every NaN is one NaN, as extended JSON writes them all alike).
   */
  static boolean exactlyEqual(BsonDocument a, BsonDocument b) {
    return a.equals(b) && exact(a, b);
  }

  private static boolean exact(BsonValue a, BsonValue b) {
    if (a.getBsonType() != b.getBsonType()) {
      return false;
    }
    switch (a.getBsonType()) {
      case DOCUMENT: {
        BsonDocument x = a.asDocument();
        BsonDocument y = b.asDocument();
        if (x.size() != y.size()) {
          return false;
        }
        Iterator<Map.Entry<String, BsonValue>> iy = y.entrySet().iterator();
        for (Map.Entry<String, BsonValue> ex : x.entrySet()) {
          Map.Entry<String, BsonValue> ey = iy.next();
          if (!ex.getKey().equals(ey.getKey()) || !exact(ex.getValue(), ey.getValue())) {
            return false;
          }
        }
        return true;
      }
      case ARRAY: {
        List<BsonValue> x = a.asArray().getValues();
        List<BsonValue> y = b.asArray().getValues();
        if (x.size() != y.size()) {
          return false;
        }
        for (int i = 0; i < x.size(); i++) {
          if (!exact(x.get(i), y.get(i))) {
            return false;
          }
        }
        return true;
      }
      case DOUBLE: {
        double x = a.asDouble().getValue();
        double y = b.asDouble().getValue();
        return Double.isNaN(x) ? Double.isNaN(y)
            : Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y);
      }
      default:
        return a.equals(b);
    }
  }

  static String json(BsonDocument d) {
    return d == null ? "-" : d.toJson(SHOWN);
  }
}
