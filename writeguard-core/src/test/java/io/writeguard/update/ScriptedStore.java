package io.writeguard.update;

import com.mongodb.MongoClientSettings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * A one-document {@link Store} for unit tests of the loop: it evaluates the version filter
 * like MongoDB would (and applies {@code $set} and the {@code $inc} of the version, enough
 * to check what was written), and lets a test script what happens on each read, write and
 * probe: an error to throw, or another writer's interference just before the write.
 * Single-threaded, like the tests that use it.
 */
final class ScriptedStore implements Store {
  private static final CodecRegistry REGISTRY = MongoClientSettings.getDefaultCodecRegistry();

  BsonDocument state;
  final Deque<RuntimeException> readErrors = new ArrayDeque<>();
  final Deque<RuntimeException> probeErrors = new ArrayDeque<>();
  /** Per write, in order: a RuntimeException to throw, a Runnable to run first, or null. */
  final Deque<Object> writeScript = new ArrayDeque<>();
  /** Used when the script is empty. */
  Object defaultWriteStep;

  int reads;
  int probes;
  final List<BsonDocument> filters = new ArrayList<>();
  final List<BsonDocument> updates = new ArrayList<>();
  final List<Document> replacements = new ArrayList<>();

  ScriptedStore(String json) {
    this.state = json == null ? null : BsonDocument.parse(json);
  }

  /** Another writer moves the version (and sets {@code by: other}). */
  Runnable otherWriter() {
    return () -> {
      long v = state.getNumber("version").longValue();
      state.put("version", new BsonInt64(v + 1));
      state.put("by", new org.bson.BsonString("other"));
    };
  }

  Runnable deleter() {
    return () -> state = null;
  }

  long version() {
    return state.getNumber("version").longValue();
  }

  @Override
  public String collectionName() {
    return "things";
  }

  @Override
  public CodecRegistry codecRegistry() {
    return REGISTRY;
  }

  @Override
  public RawBsonDocument read(Object id) {
    reads++;
    if (!readErrors.isEmpty()) {
      throw readErrors.poll();
    }
    return state == null ? null : new RawBsonDocument(state, new BsonDocumentCodec());
  }

  @Override
  public RawBsonDocument probe(Object id, String versionField) {
    probes++;
    if (!probeErrors.isEmpty()) {
      throw probeErrors.poll();
    }
    if (state == null) {
      return null;
    }
    BsonDocument projected = new BsonDocument("_id", state.get("_id"));
    if (state.containsKey(versionField)) {
      projected.put(versionField, state.get(versionField));
    }
    return new RawBsonDocument(projected, new BsonDocumentCodec());
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    BsonDocument f = beforeWrite(filter);
    updates.add(update.clone());
    if (!matches(f)) {
      return WriteResult.MISSED;
    }
    if (update.containsKey("$set")) {
      for (Map.Entry<String, BsonValue> e : update.getDocument("$set").entrySet()) {
        state.put(e.getKey(), e.getValue());
      }
    }
    long inc = update.getDocument("$inc").getInt64("version").getValue();
    long v = state.containsKey("version") ? state.getNumber("version").longValue() : 0;
    state.put("version", new BsonInt64(v + inc));
    return matched(returnAfter);
  }

  @Override
  public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
    BsonDocument f = beforeWrite(filter);
    replacements.add(new Document(replacement));
    if (!matches(f)) {
      return WriteResult.MISSED;
    }
    BsonDocument next = replacement.toBsonDocument(BsonDocument.class, REGISTRY);
    next.put("_id", state.get("_id"));
    state = next;
    return matched(returnAfter);
  }

  private BsonDocument beforeWrite(Bson filter) {
    BsonDocument f = filter.toBsonDocument(BsonDocument.class, REGISTRY);
    filters.add(f);
    Object step = writeScript.isEmpty() ? defaultWriteStep : writeScript.poll();
    if (step instanceof RuntimeException) {
      throw (RuntimeException) step;
    }
    if (step instanceof Runnable) {
      ((Runnable) step).run();
    }
    return f;
  }

  private boolean matches(BsonDocument filter) {
    if (state == null || !state.get("_id").equals(filter.get("_id"))) {
      return false;
    }
    BsonValue want = filter.get("version");
    if (want.isDocument()) { // {$exists: false}
      return !state.containsKey("version");
    }
    return state.containsKey("version")
        && state.get("version").isNumber()
        && state.getNumber("version").longValue() == want.asNumber().longValue();
  }

  private WriteResult matched(boolean returnAfter) {
    Document after = returnAfter
        ? new RawBsonDocument(state, new BsonDocumentCodec())
            .decode(REGISTRY.get(Document.class))
        : null;
    return new WriteResult(true, after);
  }
}
