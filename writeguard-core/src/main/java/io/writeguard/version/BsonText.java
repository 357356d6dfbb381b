package io.writeguard.version;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** Short mongo-shell rendering of a BSON value for reports: {@code NumberLong(4)}, {@code "12"}. */
final class BsonText {
  static final int MAX_CHARS = 60;
  private static final JsonWriterSettings SHELL =
      JsonWriterSettings.builder().outputMode(JsonMode.SHELL).build();
  private static final String PREFIX = "{\"v\": ";

  private BsonText() {}

  static String of(BsonValue value) {
    String json = new BsonDocument("v", value).toJson(SHELL);
    String text = json.startsWith(PREFIX) && json.endsWith("}")
        ? json.substring(PREFIX.length(), json.length() - 1)
        : json;
    return text.length() <= MAX_CHARS ? text : text.substring(0, MAX_CHARS - 3) + "...";
  }
}
