package io.writeguard.internal;

import com.mongodb.TransactionOptions;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The caller's deadline, and the one place where a MongoDB operation is bounded by it. Not
 * API.
 *
 * <p>Why a thread's deadline. A call of an updater, a lock, a counter, the idempotency store
 * or the transaction runner makes several round trips through several stores (a lock's
 * claim, the fenced read, its write, the release). Each entry point states its budget once
 * with {@link #within}; every operation made on that thread until it returns takes the time
 * left from {@link #current()}. A nested scope (a mutator that updates another document, a
 * lock wait inside an update) keeps the earlier of the two deadlines, as gRPC's context does,
 * so an inner budget can shorten a call and never lengthen it.
 *
 * <p>Why this class is the seam. The driver's per-operation timeout
 * ({@link MongoCollection#withTimeout}, {@code timeoutMS}, client-side operation timeout) is
 * marked experimental; it bounds server selection, the pool wait, each reply and the driver's
 * own retries by one budget, and ends with a {@code MongoOperationTimeoutException}. Only
 * {@link #bounded} and {@link #boundedWrite} call it, so a driver change touches this file.
 * It is applied per operation on a collection, never on the client: cursors a caller opens
 * itself stay unbounded.
 *
 * <p>The grace. A read past the deadline is useless, so it gets the time left (at least 1 ms:
 * the driver reads 0 as "no limit"). A write's outcome must be learned, or the caller is left
 * with "maybe applied": it gets the time left plus {@link #OUTCOME_GRACE}, so a write started
 * just before the deadline can still be answered; a caller therefore waits at most its
 * deadline plus the grace. The grace also lets a release or a clean-up after the deadline be
 * sent rather than fail at once (its lease would otherwise hold the lock until it runs out).
 *
 * <p>Deadlines run on the JVM's monotonic clock ({@link System#nanoTime}), the clock the
 * driver's timeouts run on; a component with an injected {@code Ticker} converts its own time
 * left into one with {@link #after}. Immutable; the thread's current deadline is confined to
 * that thread.
 */
public final class Deadline {
  /** Added to the time left of an operation whose outcome the caller must learn. */
  public static final Duration OUTCOME_GRACE = Duration.ofMillis(250);

  private static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  // Cleared by setting null, never removed: a get() on a thread without an entry adds one
  // anyway, so removing it made every call add and drop an entry. A null value holds nothing.
  private static final ThreadLocal<Deadline> CURRENT = new ThreadLocal<>();

  private final long atNanos;

  private Deadline(long atNanos) {
    this.atNanos = atNanos;
  }

  /** The deadline {@code left} from now (zero or negative: already passed). */
  public static Deadline after(Duration left) {
    Objects.requireNonNull(left, "left");
    return afterNanos(saturated(left));
  }

  /** The deadline {@code leftNanos} from now. */
  public static Deadline afterNanos(long leftNanos) {
    long now = System.nanoTime();
    long at = now + leftNanos;
    // Saturate: a budget of "forever" must not wrap round into the past.
    if (leftNanos > 0 && at - now < 0) {
      at = now + Long.MAX_VALUE / 2;
    }
    return new Deadline(at);
  }

  /** The calling thread's deadline, or null when no call of the library set one. */
  public static Deadline current() {
    return CURRENT.get();
  }

  /** The time left, zero once passed. */
  public Duration left() {
    return Duration.ofNanos(Math.max(0, leftNanos()));
  }

  /** Whether the deadline has passed. */
  public boolean passed() {
    return leftNanos() <= 0;
  }

  private long leftNanos() {
    return atNanos - System.nanoTime();
  }

  /** The earlier of this and {@code other} (this when other is null). */
  public Deadline earlier(Deadline other) {
    return other == null || atNanos - other.atNanos <= 0 ? this : other;
  }

  /**
   * Runs {@code work} with {@code deadline} (or the thread's current one, if earlier) as the
   * thread's deadline, then restores the one it had. A null deadline runs {@code work} as is.
   */
  public static <T> T within(Deadline deadline, Supplier<T> work) {
    if (deadline == null) {
      return work.get();
    }
    Deadline outer = enter(deadline);
    try {
      return work.get();
    } finally {
      restore(outer);
    }
  }

  /**
   * {@link #within(Deadline, Supplier)} without a lambda, for a hot path: makes
   * {@code deadline} (or the thread's current one, if earlier) the thread's deadline and returns
   * the one it had, which the caller must give to {@link #restore} in a {@code finally}.
   */
  public static Deadline enter(Deadline deadline) {
    Objects.requireNonNull(deadline, "deadline");
    Deadline outer = CURRENT.get();
    CURRENT.set(deadline.earlier(outer));
    return outer;
  }

  /** Gives the thread back the deadline {@link #enter} returned (none when null). */
  public static void restore(Deadline outer) {
    CURRENT.set(outer);
  }

  /**
   * Runs {@code work} with exactly {@code deadline} (none when null) as the thread's deadline,
   * whatever the thread had, then restores it: for work a thread does on behalf of other
   * callers (a group-commit leader's round), whose own deadlines are not the thread's.
   */
  public static <T> T replacing(Deadline deadline, Supplier<T> work) {
    Deadline outer = CURRENT.get();
    CURRENT.set(deadline);
    try {
      return work.get();
    } finally {
      restore(outer);
    }
  }

  /** Whether this deadline passes within {@code wait} from now. */
  public boolean endsWithin(Duration wait) {
    return leftNanos() - saturated(wait) <= 0;
  }

  /** {@link #within(Deadline, Supplier)} for work without a result. */
  public static void within(Deadline deadline, Runnable work) {
    within(deadline, () -> {
      work.run();
      return null;
    });
  }

  /**
   * {@code collection} with its operations bounded by the time left to the thread's deadline
   * (at least 1 ms), for reads and waits; {@code collection} itself when there is none.
   */
  public static <T> MongoCollection<T> bounded(MongoCollection<T> collection) {
    long millis = boundMillis(false);
    return millis == UNBOUNDED ? collection : withTimeoutMillis(collection, millis);
  }

  /**
   * {@code collection} bounded by the time left plus {@link #OUTCOME_GRACE}, for a write whose
   * outcome the caller must learn; {@code collection} itself when there is no deadline.
   */
  public static <T> MongoCollection<T> boundedWrite(MongoCollection<T> collection) {
    long millis = boundMillis(true);
    return millis == UNBOUNDED ? collection : withTimeoutMillis(collection, millis);
  }

  /** What {@link #boundMillis} answers when the thread has no deadline. */
  static final long UNBOUNDED = 0;

  /**
   * The timeout, in the milliseconds the driver is given, of an operation bounded by the
   * thread's deadline: the time left (plus {@link #OUTCOME_GRACE} for a write), at least 1;
   * {@link #UNBOUNDED} when there is no deadline.
   */
  static long boundMillis(boolean write) {
    Deadline deadline = CURRENT.get();
    if (deadline == null) {
      return UNBOUNDED;
    }
    return millis(deadline.leftNanos() + (write ? OUTCOME_GRACE.toNanos() : 0));
  }

  /**
   * The time a command may take under the thread's deadline: the time left (plus the grace for
   * a write), at most {@code limit}, at least 1 ms; {@code limit} when there is no deadline.
   * For clients other than the MongoDB driver's (a Redis command's timeout).
   */
  public static Duration commandTimeout(Duration limit, boolean write) {
    Deadline deadline = CURRENT.get();
    if (deadline == null) {
      return limit;
    }
    long left = deadline.leftNanos() + (write ? OUTCOME_GRACE.toNanos() : 0);
    return Duration.ofNanos(Math.max(MIN_NANOS, Math.min(saturated(limit), left)));
  }

  /**
   * Whether the thread's deadline passes within {@code wait} from now: a retry that would
   * start after it is not worth a backoff (false when there is no deadline).
   */
  public static boolean passesWithin(Duration wait) {
    Deadline deadline = CURRENT.get();
    return deadline != null && deadline.endsWithin(wait);
  }

  /**
   * {@code wait}, shortened to the time left before the thread's deadline (zero once passed):
   * how long a lock wait inside a call may last.
   */
  public static Duration capWait(Duration wait) {
    Deadline deadline = CURRENT.get();
    if (deadline == null) {
      return wait;
    }
    Duration left = deadline.left();
    return left.compareTo(wait) < 0 ? left : wait;
  }

  /** {@link #bounded(MongoCollection)} for a command run on a database. */
  public static MongoDatabase bounded(MongoDatabase database) {
    Deadline deadline = CURRENT.get();
    return deadline == null ? database
        : database.withTimeout(millis(deadline.leftNanos()), TimeUnit.MILLISECONDS);
  }

  /**
   * {@code options} with the whole transaction (its operations and its commit) bounded by the
   * time left plus {@link #OUTCOME_GRACE} (a commit's outcome must be learned);
   * {@code options} itself when there is no deadline or they set a timeout of their own.
   */
  public static TransactionOptions boundedTransaction(TransactionOptions options) {
    Deadline deadline = CURRENT.get();
    if (deadline == null || options.getTimeout(TimeUnit.MILLISECONDS) != null) {
      return options;
    }
    long millis = millis(deadline.leftNanos() + OUTCOME_GRACE.toNanos());
    return TransactionOptions.builder()
        .readConcern(options.getReadConcern())
        .writeConcern(options.getWriteConcern())
        .readPreference(options.getReadPreference())
        .maxCommitTime(options.getMaxCommitTime(TimeUnit.MILLISECONDS), TimeUnit.MILLISECONDS)
        .timeout(millis, TimeUnit.MILLISECONDS)
        .build();
  }

  // The driver's experimental client-side operation timeout on a collection (the database's
  // and the transaction's are set above, in this class too).
  static <T> MongoCollection<T> withTimeoutMillis(MongoCollection<T> collection, long millis) {
    return collection.withTimeout(millis, TimeUnit.MILLISECONDS);
  }

  /** At least 1 ms: the driver reads 0 as "no limit". */
  private static long millis(long nanos) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(MIN_NANOS, nanos)));
  }

  private static long saturated(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }

  @Override
  public String toString() {
    return "Deadline{left=" + left().toMillis() + "ms}";
  }
}
