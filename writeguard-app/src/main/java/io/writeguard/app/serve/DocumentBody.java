package io.writeguard.app.serve;

import com.fasterxml.jackson.databind.JsonNode;
import io.writeguard.path.InvalidPathException;
import io.writeguard.path.PathSegments;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;

/**
 * Checks the body of {@code POST /docs} and turns it into the document to insert.
 *
 * <pre>{@code
 * {"infos": {"<key>": {"<skey>": [ {"read": ["alice"], "title": "..."}, {} ] } } }
 * }</pre>
 *
 * <p>The body holds exactly one field, {@code infos}: an object of objects of arrays of item
 * objects, as the seed's route reads it. Every object key anywhere in it must be a valid field
 * name ({@link PathSegments#checkField}: no {@code $} prefix, no dot, no NUL, not empty), so
 * nothing stored can later be mistaken for an operator or a path. An item's {@code read}, when
 * given, is an array of distinct user ids; when missing it is created empty, so every strategy
 * finds a list to add to. {@code _id} and {@code version} are the server's: the id is a new
 * ObjectId and the version starts at 0. Errors name the field as a JSON Pointer
 * ({@code /infos/k/s/0/read}). Stateless.
 */
final class DocumentBody {
  private DocumentBody() {}

  /**
   * The {@code infos} document of a valid body.
   *
   * @throws ApiException 400 naming the first bad field
   */
  static Document infos(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("", "the body must be a JSON object {\"infos\": {...}}");
    }
    Iterator<String> names = body.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!name.equals("infos")) {
        throw ApiException.badRequest(pointer("", name), "unknown field '" + printable(name)
            + "': the body holds only 'infos' (id and version are set by the server)");
      }
    }
    JsonNode infos = body.get("infos");
    if (infos == null) {
      throw ApiException.badRequest("/infos", "missing field 'infos'");
    }
    String at = "/infos";
    Document keys = new Document();
    for (Map.Entry<String, JsonNode> key : objectFields(infos, at)) {
      String keyAt = pointer(at, key.getKey());
      Document skeys = new Document();
      for (Map.Entry<String, JsonNode> skey : objectFields(key.getValue(), keyAt)) {
        String skeyAt = pointer(keyAt, skey.getKey());
        if (!skey.getValue().isArray()) {
          throw ApiException.badRequest(skeyAt, "must be an array of items, was " + type(skey.getValue()));
        }
        List<Document> items = new ArrayList<>();
        int i = 0;
        for (JsonNode item : skey.getValue()) {
          items.add(item(item, skeyAt + "/" + i++));
        }
        skeys.append(skey.getKey(), items);
      }
      keys.append(key.getKey(), skeys);
    }
    return keys;
  }

  private static Document item(JsonNode item, String at) {
    Document doc = new Document();
    for (Map.Entry<String, JsonNode> field : objectFields(item, at)) {
      String fieldAt = pointer(at, field.getKey());
      doc.append(field.getKey(), field.getKey().equals("read")
          ? readList(field.getValue(), fieldAt) : value(field.getValue(), fieldAt));
    }
    doc.putIfAbsent("read", new ArrayList<String>());
    return doc;
  }

  private static List<String> readList(JsonNode read, String at) {
    if (!read.isArray()) {
      throw ApiException.badRequest(at, "must be an array of user ids, was " + type(read));
    }
    List<String> users = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int i = 0;
    for (JsonNode user : read) {
      String userAt = at + "/" + i++;
      if (!user.isTextual()) {
        throw ApiException.badRequest(userAt, "a user id must be a string, was " + type(user));
      }
      try {
        JwtAuth.checkUser(user.textValue());
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest(userAt, e.getMessage());
      }
      if (!seen.add(user.textValue())) {
        throw ApiException.badRequest(userAt, "user '" + user.textValue() + "' is listed twice");
      }
      users.add(user.textValue());
    }
    return users;
  }

  /** Any other JSON value of an item, as BSON; object keys are checked like paths. */
  private static Object value(JsonNode node, String at) {
    switch (node.getNodeType()) {
      case STRING:
        return node.textValue();
      case BOOLEAN:
        return node.booleanValue();
      case NULL:
        return null;
      case NUMBER:
        if (node.canConvertToInt() && node.isIntegralNumber()) {
          return node.intValue();
        }
        if (node.canConvertToLong() && node.isIntegralNumber()) {
          return node.longValue();
        }
        if (node.isIntegralNumber()) {
          throw ApiException.badRequest(at, "integer out of the int64 range: " + node.asText());
        }
        double d = node.doubleValue();
        if (!Double.isFinite(d)) {
          // 1e999999 parses as Infinity; stored, it would read back as the string "Infinity".
          throw ApiException.badRequest(at, "number out of the double range: "
              + printable(abbreviate(node.asText())));
        }
        return d;
      case ARRAY: {
        List<Object> list = new ArrayList<>();
        int i = 0;
        for (JsonNode element : node) {
          list.add(value(element, at + "/" + i++));
        }
        return list;
      }
      case OBJECT: {
        Document doc = new Document();
        for (Map.Entry<String, JsonNode> field : objectFields(node, at)) {
          doc.append(field.getKey(), value(field.getValue(), pointer(at, field.getKey())));
        }
        return doc;
      }
      default:
        throw ApiException.badRequest(at, "unsupported JSON value of type " + type(node));
    }
  }

  /** The fields of an object node, each name checked as a MongoDB field name. */
  private static List<Map.Entry<String, JsonNode>> objectFields(JsonNode node, String at) {
    if (!node.isObject()) {
      throw ApiException.badRequest(at, "must be a JSON object, was " + type(node));
    }
    List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> field = it.next();
      try {
        PathSegments.checkField(field.getKey());
      } catch (InvalidPathException e) {
        throw ApiException.badRequest(pointer(at, field.getKey()), e.getMessage());
      }
      fields.add(field);
    }
    return fields;
  }

  /** A JSON Pointer (RFC 6901) one level below {@code at}; control characters shown as '?'. */
  static String pointer(String at, String name) {
    return at + "/" + printable(name).replace("~", "~0").replace("/", "~1");
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  private static String printable(String s) {
    return Shown.value(s);
  }

  private static String type(JsonNode node) {
    return node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }
}
