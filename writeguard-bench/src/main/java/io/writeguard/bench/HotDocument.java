package io.writeguard.bench;

import io.writeguard.update.RetryPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.bson.Document;
import org.bson.types.Binary;
import org.bson.types.ObjectId;

/**
 * The bench's hot document and its one change. Operation {@code n} sets bit {@code n} of the
 * binary field {@code bits} (read in Java, changed, written back); the atomic ceiling adds
 * {@code 2^(n%64)} to the int64 {@code words.<n/64>} with {@code $inc}, and the optional
 * {@code $push} contender appends {@code n} to {@code ids}. A bitmap keeps the document small (one bit per
 * operation, so a round of 20,000 operations reads and writes 2.5 kB) while every acknowledged
 * operation stays checkable one by one: its bit, or its id, is in the final document or its
 * update was lost.
 *
 * <p>The document starts as {@code {_id, version: 0, bits: <empty>}}: {@code version} is both
 * WriteGuard's and Spring Data's {@code @Version} field. Stateless.
 */
final class HotDocument {
  static final String BITS = "bits";
  static final String IDS = "ids";
  static final String WORDS = "words";
  static final String VERSION = "version";
  /** Bytes that only make the document bigger ({@code --pad}); no contender changes them. */
  static final String PAD = "pad";
  /** Marks the cold documents {@code --collection-docs} adds around the hot ones. */
  static final String FILLER = "filler";
  /** The most {@code --pad} may add: MongoDB refuses documents over 16 MB. */
  static final int MAX_PAD = 15 * 1024 * 1024;

  /** The optimistic contenders' budget: WriteGuard's default attempts and backoff. */
  static final RetryPolicy BUDGET = RetryPolicy.defaults();
  /** How long a lock contender waits for the lock: WriteGuard's default retry deadline. */
  static final Duration LOCK_WAIT = BUDGET.deadline();

  private HotDocument() {}

  /** A fresh document with no operation in it. */
  static Document fresh(ObjectId id) {
    return fresh(id, 0);
  }

  /** A fresh document padded with a binary {@code pad} of {@code padBytes} (none for 0). */
  static Document fresh(ObjectId id, int padBytes) {
    if (padBytes < 0 || padBytes > MAX_PAD) {
      throw new IllegalArgumentException("pad must be between 0 and " + MAX_PAD + " bytes, was "
          + padBytes);
    }
    Document doc = new Document("_id", id).append(VERSION, 0L)
        .append(BITS, new Binary(new byte[0]));
    return padBytes == 0 ? doc : doc.append(PAD, new Binary(new byte[padBytes]));
  }

  /** A cold document of the same shape that no client touches. */
  static Document filler() {
    return fresh(new ObjectId()).append(FILLER, true);
  }

  /**
   * The bench's one change, as every contender that works on a {@link Document} makes it: the
   * {@code bits} of {@code doc} with bit {@code opId} set, as a new {@link Binary}.
   */
  static Binary bitsWith(Document doc, long opId) {
    return new Binary(withBit(bitsOf(doc), opId));
  }

  /** {@code bits} with bit {@code opId} set (a new array, grown as needed). */
  static byte[] withBit(byte[] bits, long opId) {
    int index = checkedIndex(opId);
    byte[] out = Arrays.copyOf(bits, Math.max(bits.length, index / 8 + 1));
    out[index / 8] |= (byte) (1 << (index % 8));
    return out;
  }

  /** The {@code bits} field of {@code doc}, empty when absent. */
  static byte[] bitsOf(Document doc) {
    Object value = doc.get(BITS);
    if (value == null) {
      return new byte[0];
    }
    if (value instanceof Binary binary) {
      return binary.getData();
    }
    if (value instanceof byte[] bytes) {
      return bytes;
    }
    throw new IllegalStateException("field " + BITS + " of _id=" + doc.get("_id")
        + " is a " + value.getClass().getSimpleName() + ", not binary");
  }

  /** Every operation whose change is in {@code doc}: its bits, its words and its {@code ids}. */
  static BitSet kept(Document doc) {
    byte[] bits = bitsOf(doc);
    BitSet kept = new BitSet(bits.length * 8);
    for (int i = 0; i < bits.length * 8; i++) {
      if ((bits[i / 8] & (1 << (i % 8))) != 0) {
        kept.set(i);
      }
    }
    Document words = doc.get(WORDS, Document.class);
    if (words != null) {
      words.forEach((key, word) -> {
        long value = ((Number) word).longValue();
        for (int b = 0; b < 64; b++) {
          if ((value & (1L << b)) != 0) {
            kept.set(Integer.parseInt(key) * 64 + b);
          }
        }
      });
    }
    List<?> ids = doc.getList(IDS, Object.class, List.of());
    for (Object id : ids) {
      kept.set(checkedIndex(((Number) id).longValue()));
    }
    return kept;
  }

  static int checkedIndex(long opId) {
    if (opId < 0 || opId > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("operation id out of range: " + opId);
    }
    return (int) opId;
  }
}
