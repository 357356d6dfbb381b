package io.writeguard.internal;

import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DocumentCodec;
import org.bson.codecs.IntegerCodec;
import org.bson.codecs.LongCodec;
import org.bson.codecs.ObjectIdCodec;
import org.bson.codecs.StringCodec;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.ObjectId;

/**
 * Which of the ids almost every collection uses ({@code ObjectId}, {@code String},
 * {@code Long}, {@code Integer}) a codec registry encodes with the driver's own codecs, asked
 * once per registry. Not API; immutable and thread-safe.
 *
 * <p>Why it exists. Every call of an updater keys its document and may check a replacement's
 * {@code _id}, and both go through the registry: each {@code CodecRegistry.get} of the driver's
 * registry allocates its cache key, and encoding one value through a {@code Document} costs
 * about a kilobyte. For the usual ids the answer is known without encoding, once the registry is
 * known to use the driver's codecs for them; that is what this class remembers, for the last
 * {@value #REMEMBERED} registries it was asked about (applications use one, or a few: the
 * default one, a POJO one). It assumes a registry's codecs do not change, as the driver's
 * registries never do.
 */
public final class UsualIds {
  /** Registries remembered; more, and the oldest is asked again when it comes back. */
  static final int REMEMBERED = 8;
  // Replaced whole, never changed: readers scan it without a lock.
  private static volatile UsualIds[] known = new UsualIds[0];

  private final CodecRegistry registry;
  private final boolean objectIds;
  private final boolean strings;
  private final boolean stringsAsStrings;
  private final boolean longs;
  private final boolean integers;
  private final boolean documents;
  // Built directly by asBson only with the driver's own codec classes: they are not final, and
  // a subclass of one may write its values otherwise.
  private final boolean objectIdsAsIs;
  private final boolean longsAsIs;
  private final boolean integersAsIs;

  private UsualIds(CodecRegistry registry) {
    this.registry = registry;
    Codec<ObjectId> objectIdCodec = codec(registry, ObjectId.class);
    this.objectIds = objectIdCodec instanceof ObjectIdCodec;
    Codec<String> stringCodec = codec(registry, String.class);
    this.strings = stringCodec instanceof StringCodec;
    this.stringsAsStrings = isExactly(stringCodec, StringCodec.class)
        && ((StringCodec) stringCodec).getRepresentation() == BsonType.STRING;
    Codec<Long> longCodec = codec(registry, Long.class);
    this.longs = longCodec instanceof LongCodec;
    Codec<Integer> integerCodec = codec(registry, Integer.class);
    this.integers = integerCodec instanceof IntegerCodec;
    this.objectIdsAsIs = isExactly(objectIdCodec, ObjectIdCodec.class);
    this.longsAsIs = isExactly(longCodec, LongCodec.class);
    this.integersAsIs = isExactly(integerCodec, IntegerCodec.class);
    Codec<Document> documentCodec = codec(registry, Document.class);
    this.documents = documentCodec != null && documentCodec.getClass() == DocumentCodec.class;
  }

  /** The registry's codec for {@code type}, null when it has none (then that id is encoded). */
  private static <T> Codec<T> codec(CodecRegistry registry, Class<T> type) {
    try {
      return registry.get(type);
    } catch (CodecConfigurationException none) {
      return null;
    }
  }

  private static boolean isExactly(Codec<?> codec, Class<?> type) {
    return codec != null && codec.getClass() == type;
  }

  /** What {@code registry} does with the usual ids. */
  public static UsualIds of(CodecRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    for (UsualIds usual : known) {
      if (usual.registry == registry) {
        return usual;
      }
    }
    UsualIds asked = new UsualIds(registry);
    synchronized (UsualIds.class) {
      UsualIds[] before = known;
      int kept = Math.min(before.length, REMEMBERED - 1);
      UsualIds[] after = new UsualIds[kept + 1];
      System.arraycopy(before, before.length - kept, after, 0, kept); // the oldest goes
      after[kept] = asked;
      known = after;
    }
    return asked;
  }

  /**
   * True when {@code id} is an {@code ObjectId}, {@code String}, {@code Long} or
   * {@code Integer} that the registry encodes with the driver's codec for its class (of any
   * representation).
   */
  public boolean driverEncodes(Object id) {
    return id instanceof String && strings || id instanceof ObjectId && objectIds
        || id instanceof Long && longs || id instanceof Integer && integers;
  }

  /**
   * The BSON value {@code id} becomes as a field of a {@code Document} encoded with the
   * registry: {@link #asBson} for the usual ids, else by encoding it (about a kilobyte of
   * garbage per call).
   *
   * @throws org.bson.codecs.configuration.CodecConfigurationException if no codec encodes it
   */
  public BsonValue encode(Object id) {
    BsonValue usual = asBson(id);
    return usual != null ? usual
        : new Document("_id", id).toBsonDocument(BsonDocument.class, registry).get("_id");
  }

  /**
   * The BSON value {@code id} becomes as a field of a {@code Document} encoded with the
   * registry, when that is known without encoding it: a usual id, the driver's own codec
   * classes for it (not a subclass) and for {@code Document}, strings as strings. Null
   * otherwise: encode it.
   */
  public BsonValue asBson(Object id) {
    if (!documents) {
      return null;
    }
    if (id instanceof ObjectId o && objectIdsAsIs) {
      return new BsonObjectId(o);
    }
    if (id instanceof String s && stringsAsStrings) {
      return new BsonString(s);
    }
    if (id instanceof Long l && longsAsIs) {
      return new BsonInt64(l);
    }
    if (id instanceof Integer i && integersAsIs) {
      return new BsonInt32(i);
    }
    return null;
  }
}
