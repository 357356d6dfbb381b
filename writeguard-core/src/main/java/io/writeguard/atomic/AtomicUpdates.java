package io.writeguard.atomic;

import com.mongodb.client.model.Updates;
import io.writeguard.path.FieldPath;
import io.writeguard.version.VersionPolicy;
import java.util.Objects;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;

/**
 * One-round-trip updates on a validated {@link FieldPath}: no read, no lock, no retry. Use these
 * whenever a change fits one operator; MongoDB applies every single-document update atomically,
 * so two concurrent calls can never erase each other.
 *
 * <pre>{@code
 * // the seed's "mark as read": idempotent, a repeated click adds nothing
 * collection.updateOne(
 *     and(eq("_id", id), exists(item.toString())),   // no such item: matchedCount 0, nothing padded
 *     AtomicUpdates.addToSet(item.field("read"), userId));
 * }</pre>
 *
 * <p><b>On a versioned collection use {@link #versioned(VersionPolicy)}.</b> The static
 * methods here write only the path: they do not raise a version. A {@code VersionedUpdater}
 * that read the document before such a write does not see it and writes back the value it
 * read (a mutator reads {@code read: ["a"]}, an {@code addToSet} of {@code "b"} lands, the
 * mutator sets {@code read: ["a", "c"]}: {@code "b"} is gone). The rule: a writer that changes
 * any field a versioned mutator may read must raise the version in the same write. So use
 * these unbound forms only on documents no versioned mutator reads.
 *
 * <pre>{@code
 * AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
 * collection.updateOne(eq("_id", id), atomic.addToSet(FieldPath.of("read"), userId));
 * // {$addToSet: {read: userId}, $inc: {version: 1}}
 * }</pre>
 *
 * <p>Values are written as data: update operators never interpret operators inside a value.
 * Combine several with {@link Updates#combine} (unbound), or
 * {@link Versioned#raising(Bson)} (versioned). Stateless and thread-safe.
 */
public final class AtomicUpdates {
  private AtomicUpdates() {}

  /** {@code $addToSet}: adds {@code value} to the array unless an equal element is there. */
  public static <T> Bson addToSet(FieldPath path, T value) {
    return Updates.addToSet(dotted(path), value);
  }

  /** {@code $push}: appends {@code value}, even when an equal element is already there. */
  public static <T> Bson push(FieldPath path, T value) {
    return Updates.push(dotted(path), value);
  }

  /**
   * {@code $inc}: adds {@code amount} (negative to subtract).
   *
   * @param amount an Integer, Long, Double or Decimal128; finite
   * @throws IllegalArgumentException naming the amount when it is null, NaN, infinite or of a
   *     type BSON cannot store as a number
   */
  public static Bson inc(FieldPath path, Number amount) {
    return Updates.inc(dotted(path), checkAmount(amount));
  }

  /** {@code $set}: replaces the value at the path (creating missing parent documents). */
  public static <T> Bson set(FieldPath path, T value) {
    return Updates.set(dotted(path), value);
  }

  private static String dotted(FieldPath path) {
    return Objects.requireNonNull(path, "path must not be null").toString();
  }

  /**
   * The same operators bound to a {@link VersionPolicy}: each also raises the version by one in
   * the same atomic write. Mixing these with {@code VersionedUpdater} on one document loses no
   * update: an updater that read before the atomic write sees a conflict and re-reads.
   */
  public static Versioned versioned(VersionPolicy policy) {
    return new Versioned(Objects.requireNonNull(policy, "policy"));
  }

  /**
   * Atomic operators that also raise the version ({@code $inc: {version: 1}}), for collections
   * a {@code VersionedUpdater} writes too. Each refuses a path on or under the version field
   * with a {@link io.writeguard.version.VersionFieldException}. Immutable and thread-safe.
   */
  public static final class Versioned {
    private final VersionPolicy policy;

    private Versioned(VersionPolicy policy) {
      this.policy = policy;
    }

    public VersionPolicy policy() {
      return policy;
    }

    /** {@link AtomicUpdates#addToSet} and {@code $inc} of the version. */
    public <T> Bson addToSet(FieldPath path, T value) {
      return raising(AtomicUpdates.addToSet(path, value));
    }

    /** {@link AtomicUpdates#push} and {@code $inc} of the version. */
    public <T> Bson push(FieldPath path, T value) {
      return raising(AtomicUpdates.push(path, value));
    }

    /** {@link AtomicUpdates#inc} and {@code $inc} of the version. */
    public Bson inc(FieldPath path, Number amount) {
      return raising(AtomicUpdates.inc(path, amount));
    }

    /** {@link AtomicUpdates#set} and {@code $inc} of the version. */
    public <T> Bson set(FieldPath path, T value) {
      return raising(AtomicUpdates.set(path, value));
    }

    /**
     * Any operator update (several combined, say) and {@code $inc} of the version.
     *
     * @throws io.writeguard.version.VersionFieldException if {@code update} writes the version
     */
    public Bson raising(Bson update) {
      return policy.raising(update);
    }
  }

  private static Number checkAmount(Number amount) {
    Objects.requireNonNull(amount, "inc amount must not be null");
    if (amount instanceof Integer || amount instanceof Long) {
      return amount;
    }
    if (amount instanceof Double) {
      if (!Double.isFinite(amount.doubleValue())) {
        throw new IllegalArgumentException("inc amount must be finite, was " + amount);
      }
      return amount;
    }
    if (amount instanceof Decimal128) {
      Decimal128 d = (Decimal128) amount;
      if (d.isNaN() || d.isInfinite()) {
        throw new IllegalArgumentException("inc amount must be finite, was " + amount);
      }
      return amount;
    }
    throw new IllegalArgumentException("inc amount must be an Integer, Long, Double or"
        + " Decimal128, was " + amount + " (" + amount.getClass().getName() + ")");
  }
}
