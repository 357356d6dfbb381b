package io.writeguard.typed;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonDocumentWriter;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;

/**
 * Translates between a typed collection's document class {@code T} and the {@link Document}s
 * the versioned machinery reads and writes, with the collection's own codec registry.
 *
 * <p>Why a translation layer and not a typed store: the updater's compare-and-set, its group
 * commit, its version rules and the fenced writer all work on BSON, whatever the Java type.
 * So the typed updaters and writers run the Document-based ones over {@link #documentView()}
 * (the same collection, read as {@code Document}) and only decode what a mutator is shown and
 * encode what it returns. It sits below {@code lock} and {@code update} (it knows only the
 * driver), so both can use it. The version is whatever the codec writes under the version field's name, so a
 * {@code Long version} (or a property mapped to that name) is the version.
 *
 * <p>The one rule this layer adds: a {@code null} version in an encoded value means "not
 * set" and is dropped before the library sees it (a codec that writes nulls would otherwise
 * store {@code version: null}, which the version policy refuses). So a value built with a
 * {@code null} version is read like one with the version left as read.
 *
 * <p>Immutable and thread-safe if the codec registry is (the driver's are).
 *
 * @param <T> the collection's document class
 */
public final class TypedDocuments<T> {
  private static final DecoderContext DECODE = DecoderContext.builder().build();
  private static final EncoderContext ENCODE =
      EncoderContext.builder().isEncodingCollectibleDocument(true).build();

  private final Class<T> type;
  private final CodecRegistry registry;
  private final Codec<T> codec;
  private final Codec<Document> documentCodec;
  private final MongoCollection<Document> documentView;

  private TypedDocuments(MongoCollection<T> collection) {
    this.type = collection.getDocumentClass();
    // The user's codecs first; the driver's defaults behind them so Document is always there.
    this.registry = CodecRegistries.fromRegistries(
        collection.getCodecRegistry(), MongoClientSettings.getDefaultCodecRegistry());
    try {
      this.codec = registry.get(type);
    } catch (CodecConfigurationException e) {
      throw new IllegalArgumentException("the codec registry of collection "
          + collection.getNamespace().getFullName() + " has no codec for "
          + type.getName() + ": " + e.getMessage(), e);
    }
    this.documentCodec = registry.get(Document.class);
    this.documentView = collection.withDocumentClass(Document.class).withCodecRegistry(registry);
  }

  /**
   * The translation for {@code collection}'s document class.
   *
   * @throws IllegalArgumentException if its codec registry cannot encode that class
   */
  public static <T> TypedDocuments<T> of(MongoCollection<T> collection) {
    return new TypedDocuments<>(Objects.requireNonNull(collection, "collection"));
  }

  /** The same collection (settings, write concern) with {@code Document} as document class. */
  public MongoCollection<Document> documentView() {
    return documentView;
  }

  public Class<T> type() {
    return type;
  }

  /** {@code document} as a {@code T}; fields the class does not map are the codec's affair. */
  public T decode(Document document) {
    Objects.requireNonNull(document, "document");
    BsonDocument bson = document.toBsonDocument(Document.class, registry);
    return codec.decode(new BsonDocumentReader(bson), DECODE);
  }

  /**
   * {@code value} as a {@code Document}, with {@code versionField} dropped when the codec
   * wrote it as {@code null} (see the class comment); {@code versionField} may be null.
   */
  public Document encode(T value, String versionField) {
    Objects.requireNonNull(value, "value");
    BsonDocument bson = new BsonDocument();
    codec.encode(new BsonDocumentWriter(bson), value, ENCODE);
    if (versionField != null && bson.containsKey(versionField)
        && bson.get(versionField).isNull()) {
      bson.remove(versionField);
    }
    return documentCodec.decode(new BsonDocumentReader(bson), DECODE);
  }

  @Override
  public String toString() {
    return "TypedDocuments{" + type.getName() + "}";
  }
}
