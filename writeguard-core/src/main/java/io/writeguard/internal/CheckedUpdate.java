package io.writeguard.internal;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Updates;
import java.util.Objects;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * An update the library adds operators to ({@code $inc} of a version, {@code $max} of a fence)
 * after checking what it writes, built before anyone knows the collection it is for.
 *
 * <p>Why. Checking means rendering, and rendering needs codecs. The driver's defaults render
 * most updates, so those are checked at once and a bad one is refused where it is built. But
 * an update may hold a value only the collection's codecs encode: a UUID under the
 * representation the application configured (the defaults refuse to guess one), a class with
 * a codec of the application's own. Such an update is checked when the write renders it, with
 * the collection's codecs: the same check, its exception thrown by the write before anything
 * is sent. An update the defaults render is checked again that way too: the collection's codecs
 * may render a value differently (a record the defaults encode by its components, an
 * application codec for it that names its fields otherwise), and what is sent is what must
 * pass. Not API.
 */
public final class CheckedUpdate implements Bson {
  private final Bson update;
  private final Bson added;
  private final Consumer<BsonDocument> check;
  /** The registry the update was checked with when built, or null. */
  private final CodecRegistry checkedWith;

  private CheckedUpdate(Bson update, Bson added, Consumer<BsonDocument> check,
      CodecRegistry checkedWith) {
    this.update = update;
    this.added = added;
    this.check = check;
    this.checkedWith = checkedWith;
  }

  /**
   * {@code update} combined with {@code added}, {@code check}ed on {@code update} as rendered:
   * now with the driver's default codecs when they can render it, and when the write renders
   * it with the collection's codecs (unless those are the defaults it was checked with).
   *
   * @throws RuntimeException whatever {@code check} throws, when it runs now
   */
  public static Bson of(Bson update, Bson added, Consumer<BsonDocument> check) {
    Objects.requireNonNull(update, "update");
    CodecRegistry defaults = MongoClientSettings.getDefaultCodecRegistry();
    BsonDocument rendered;
    try {
      rendered = update.toBsonDocument(BsonDocument.class, defaults);
    } catch (CodecConfigurationException needsTheCollectionsCodecs) {
      return new CheckedUpdate(update, added, check, null);
    }
    check.accept(rendered);
    return new CheckedUpdate(update, added, check, defaults);
  }

  @Override
  public <T> BsonDocument toBsonDocument(Class<T> documentClass, CodecRegistry registry) {
    BsonDocument rendered = update.toBsonDocument(BsonDocument.class, registry);
    if (registry != checkedWith) { // what is sent must pass, as the collection renders it
      check.accept(rendered);
    }
    return Updates.combine(rendered, added).toBsonDocument(documentClass, registry);
  }

  @Override
  public String toString() {
    return "CheckedUpdate{update=" + update + ", added=" + added + "}";
  }
}
