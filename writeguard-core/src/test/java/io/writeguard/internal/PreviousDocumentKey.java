package io.writeguard.internal;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonValue;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.ObjectId;
import org.bson.types.Decimal128;

/**
 * REVIEW REFERENCE: DocumentKey as it was at 4634ed8, to hold the new one to it. A document's {@code _id} as MongoDB tells documents apart, for keying per-document queues and
 * locks in Java. Not API; immutable and thread-safe.
 *
 * <p>Why it exists. Java's equality is not MongoDB's: {@code 7} and {@code 7L} (and
 * {@code 7.0}) are one {@code _id} to MongoDB but unequal in Java; {@code "k"} and
 * {@code new BsonString("k")} are one document; a {@code byte[]} is equal only to itself; and
 * {@code Document.equals} ignores field order, which MongoDB does not ({@code {a: 1, b: 2}} and
 * {@code {b: 2, a: 1}} are two documents). Keyed by the raw id, a group-commit queue would run
 * one document's update on another, and a lock would let the same document be held twice.
 *
 * <p>So the id is encoded with the collection's codecs and turned into a canonical text:
 * numbers by their exact value (whatever their BSON type), documents with their field order,
 * every other value with its type and its exact content (a timestamp's 64 bits, a regex's
 * pattern and options, code's text, a DBPointer's namespace and ObjectId). JavaScript with
 * scope is refused ({@link IllegalArgumentException}): MongoDB versions have compared scopes
 * differently, so no key is exact. Two keys are equal exactly when the ids name the same
 * document (a collection collation that is not the simple one is not seen). {@link #lockText()}
 * is the short form for lock keys: the same for the same document, and readable for the usual
 * ids (an ObjectId's hex, a string as it is, an integral number in decimal; other ids their
 * canonical text, hashed when longer than 64 characters); two documents may share it
 * ({@code "7"} and {@code 7}), which only puts them under one lock.
 */
final class PreviousDocumentKey {
  private static final HexFormat HEX = HexFormat.of();
  /** Longer canonical texts are hashed in lock keys (lock services bound key lengths). */
  private static final int MAX_PLAIN_LOCK_TEXT = 64;

  private final Object id;
  private final String canonical;
  private final String lockText;

  private PreviousDocumentKey(Object id, String canonical, String lockText) {
    this.id = id;
    this.canonical = canonical;
    this.lockText = lockText;
  }

  /**
   * The key of {@code id}, encoded with {@code registry}.
   *
   * @throws org.bson.codecs.configuration.CodecConfigurationException if no codec encodes it
   * @throws IllegalArgumentException if the id is, or holds, JavaScript with scope: MongoDB
   *     versions tell those apart differently, so no key is exact
   */
  public static PreviousDocumentKey of(Object id, CodecRegistry registry) {
    Objects.requireNonNull(id, "id");
    UsualIds ids = UsualIds.of(registry);
    PreviousDocumentKey usual = usual(id, ids);
    if (usual != null) {
      return usual;
    }
    BsonValue value = ids.encode(id);
    StringBuilder canonical = new StringBuilder();
    append(canonical, value);
    return new PreviousDocumentKey(id, canonical.toString(), lockText(value, canonical));
  }

  /** The id as the caller gave it. */
  public Object id() {
    return id;
  }

  /** The id's text in a lock key (see the class comment). */
  public String lockText() {
    return lockText;
  }

  /**
   * A function of the canonical text alone (so the same document always gets the same one):
   * the readable form of the usual ids, else the canonical text, hashed when it is long (a
   * number's exact expansion can run to a thousand digits).
   */
  private static String lockText(BsonValue value, CharSequence canonical) {
    switch (value.getBsonType()) {
      case OBJECT_ID:
        return value.asObjectId().getValue().toHexString();
      case STRING:
        return value.asString().getValue();
      case SYMBOL:
        return value.asSymbol().getSymbol(); // one _id with the string of the same text
      case INT32, INT64, DOUBLE, DECIMAL128:
        BigDecimal exact = exact(value);
        if (exact != null && exact.scale() <= 0) {
          try {
            return Long.toString(exact.longValueExact());
          } catch (ArithmeticException beyondLong) {
            break; // the canonical text below
          }
        }
        break;
      default:
        break;
    }
    return canonical.length() <= MAX_PLAIN_LOCK_TEXT ? canonical.toString()
        : "~" + HEX.formatHex(sha256(canonical.toString()));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static void append(StringBuilder out, BsonValue value) {
    switch (value.getBsonType()) {
      case INT32, INT64, DOUBLE, DECIMAL128 -> {
        BigDecimal exact = exact(value);
        out.append('#').append(exact != null ? exact.toPlainString() : special(value))
            .append(';'); // ended, so no digit of what follows can be read as part of it
      }
      case STRING -> string(out.append('s'), value.asString().getValue());
      case SYMBOL -> string(out.append('s'), value.asSymbol().getSymbol());
      case OBJECT_ID -> out.append('o').append(value.asObjectId().getValue().toHexString());
      case BOOLEAN -> out.append(value.asBoolean().getValue() ? "b1" : "b0");
      case DATE_TIME -> out.append('d').append(value.asDateTime().getValue()).append(';');
      case NULL -> out.append('n');
      case BINARY -> out.append('x').append(value.asBinary().getType() & 0xff).append(':')
          .append(HEX.formatHex(value.asBinary().getData())).append(';');
      case DOCUMENT -> {
        out.append('{');
        for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
          string(out, field.getKey());
          append(out, field.getValue());
        }
        out.append('}');
      }
      case ARRAY -> {
        out.append('[');
        for (BsonValue element : value.asArray()) {
          append(out, element);
        }
        out.append(']');
      }
      case TIMESTAMP -> out.append('t').append(Long.toUnsignedString(
          value.asTimestamp().getValue())).append(';');
      case REGULAR_EXPRESSION -> string(string(out.append('r'),
          value.asRegularExpression().getPattern()), value.asRegularExpression().getOptions());
      case JAVASCRIPT -> string(out.append('j'), value.asJavaScript().getCode());
      case DB_POINTER -> string(out.append('p'), value.asDBPointer().getNamespace())
          .append(value.asDBPointer().getId().toHexString());
      case MIN_KEY -> out.append("k-");
      case MAX_KEY -> out.append("k+");
      case UNDEFINED -> out.append('u');
      // JavaScript with scope (and anything newer): MongoDB versions have compared the scope
      // differently (its raw bytes, later as a document whose numbers compare by value), so
      // no key is exact for every server; printing it (toString) made keys of ids whose
      // scopes differ collide.
      default -> throw new IllegalArgumentException("an _id (or a value inside one) of type "
          + value.getBsonType() + " cannot be keyed exactly as MongoDB tells ids apart: "
          + value);
    }
  }

  /** Length-prefixed, so no string can end where another value begins. */
  private static StringBuilder string(StringBuilder out, String s) {
    return out.append(s.length()).append(':').append(s);
  }

  /** The exact value of a finite number, -0 as 0; null for NaN and the infinities. */
  private static BigDecimal exact(BsonValue value) {
    return switch (value.getBsonType()) {
      case INT32 -> BigDecimal.valueOf(value.asInt32().getValue());
      case INT64 -> BigDecimal.valueOf(value.asInt64().getValue());
      case DOUBLE -> {
        double d = value.asDouble().getValue();
        yield Double.isFinite(d) ? canonical(new BigDecimal(d)) : null;
      }
      default -> {
        Decimal128 d = value.asDecimal128().getValue();
        if (d.isNaN() || d.isInfinite()) {
          yield null;
        }
        try {
          yield canonical(d.bigDecimalValue());
        } catch (ArithmeticException negativeZero) { // the one value BigDecimal cannot hold
          yield BigDecimal.ZERO;
        }
      }
    };
  }

  private static BigDecimal canonical(BigDecimal d) {
    return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
  }

  private static String special(BsonValue value) {
    double d = value.isDouble() ? value.asDouble().getValue()
        : value.asDecimal128().getValue().isNaN() ? Double.NaN
        : value.asDecimal128().getValue().isNegative() ? Double.NEGATIVE_INFINITY
        : Double.POSITIVE_INFINITY;
    return Double.isNaN(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PreviousDocumentKey k && k.canonical.equals(canonical);
  }

  @Override
  public int hashCode() {
    return canonical.hashCode();
  }

  /**
   * The key of a {@code String}, {@code ObjectId}, {@code Integer} or {@code Long} id that the
   * registry encodes with the driver's own codec, built directly (the same canonical text and
   * lock text as encoding it would give: a test holds the two paths equal); null otherwise.
   * These are almost every id, and group commit keys every call.
   */
  private static PreviousDocumentKey usual(Object id, UsualIds ids) {
    if (!ids.driverEncodes(id)) { // the registry asked once, not per call
      return null;
    }
    if (id instanceof String s) {
      return new PreviousDocumentKey(id, s.length() + ":" + s, s, 's');
    }
    if (id instanceof ObjectId o) {
      String hex = o.toHexString();
      return new PreviousDocumentKey(id, hex, hex, 'o');
    }
    String digits = id.toString(); // a Long or an Integer
    return new PreviousDocumentKey(id, digits + ";", digits, '#');
  }

  private PreviousDocumentKey(Object id, String canonicalBody, String lockText, char type) {
    this(id, type + canonicalBody, lockText);
  }

  /** The id as given, for messages. */
  @Override
  public String toString() {
    return String.valueOf(id instanceof byte[] b ? "0x" + HEX.formatHex(b) : id);
  }
}
