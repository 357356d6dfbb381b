package io.writeguard.counter;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.Checks;
import io.writeguard.lock.LockService;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.Document;

/**
 * A hot number split into N shards: an increment goes to a random shard with {@code $inc}, the
 * total is the sum, and a decrement never drives the total (or any shard) below zero.
 *
 * <p>Why shards: MongoDB applies writes to one document one at a time, so a single hot
 * document caps throughput and makes every conditional decrement contend on the same value.
 * Two layouts are offered, because they do not buy the same thing (see {@link CounterLayout}
 * and docs/counters-idempotency-transactions.md for measurements): shards as fields of one
 * document (the seed's {@code balance_shard_0..9}) still serialise on that document; shards
 * as documents spread the writes.
 *
 * <p>A decrement of {@code a}:
 * <ol>
 *   <li>takes {@code a} from one random shard with {@code updateOne({shard >= a}, {$inc: -a})};
 *   <li>if that shard held less, combines: with {@link CounterLayout#FIELDS} one atomic
 *       conditional update over the shards it needs ({@code AtomicFieldsCombiner}); with
 *       {@link CounterLayout#DOCUMENTS} another shard that holds enough, else a drain of
 *       several shards under the counter's lock ({@code LockedDrainCombiner}, whose javadoc
 *       explains why concurrent single-shard decrements cannot break it);
 *   <li>if the counter holds less than {@code a}, throws {@link InsufficientBalanceException}
 *       and the counter is left as it was.
 * </ol>
 * Every write that lowers a shard carries the {@code $gte} condition, so no shard is ever
 * negative and no reader ever sees a negative total.
 *
 * <p>The shard count is part of the stored layout: keep it fixed for a collection (a smaller
 * count would hide the higher shards). Immutable and thread-safe.
 */
public final class ShardedCounter {
  private final CounterLayout layout;
  private final int shards;
  private final ShardStore store;
  private final Combiner combiner;
  private final Duration deadline;

  private ShardedCounter(Builder b) {
    this.layout = b.layout;
    this.shards = b.shards;
    this.deadline = b.deadline;
    ShardWrites writes = new ShardWrites(b.collection, b.ticker, b.versionPolicy,
        layout == CounterLayout.FIELDS ? Set.copyOf(FieldShardStore.fieldNames(b.field, shards))
            : Set.of(b.field));
    if (layout == CounterLayout.FIELDS) {
      FieldShardStore fields = new FieldShardStore(writes, b.field, shards);
      this.store = fields;
      this.combiner = new AtomicFieldsCombiner(fields, b.maxCombineAttempts);
    } else {
      DocumentShardStore documents = new DocumentShardStore(writes, b.field, shards);
      this.store = documents;
      String lockPrefix = "counter:" + b.collection.getNamespace().getFullName() + ":";
      this.combiner = new LockedDrainCombiner(documents, shards, b.lockService, b.lockWaitTimeout,
          lockPrefix);
    }
  }

  /** A builder for counters stored in {@code collection}. */
  public static Builder builder(MongoCollection<Document> collection) {
    return new Builder(Objects.requireNonNull(collection, "collection"));
  }

  /**
   * Adds {@code amount} (>= 1) to a random shard, creating the counter if it is missing.
   *
   * @throws io.writeguard.update.WriteOutcomeUnknownException if the reply was lost after
   *     sending: the increment may or may not have been applied, and it is not re-sent (that
   *     could count it twice)
   */
  public void increment(String counterId, long amount) {
    increment(counterId, amount, ChangeRecorder.NONE);
  }

  /**
   * {@link #increment(String, long)}, with {@code recorder}'s update sent in the same write
   * (see {@link ChangeRecorder}).
   *
   * @throws IllegalArgumentException if the recorder's update writes a field the counter
   *     writes; nothing written
   */
  public void increment(String counterId, long amount, ChangeRecorder recorder) {
    checkId(counterId);
    checkAmount(amount);
    Objects.requireNonNull(recorder, "recorder");
    Deadline.within(Deadline.after(deadline),
        () -> store.add(counterId, randomShard(), amount, recorder));
  }

  /**
   * Takes {@code amount} (>= 1) from the counter.
   *
   * @throws InsufficientBalanceException if the counter holds less; nothing written
   * @throws CounterContentionException if (fields layout) concurrent decrements kept winning
   * @throws io.writeguard.lock.LockTimeoutException if (documents layout) the combine lock
   *     was not had in time; nothing written
   * @throws io.writeguard.update.WriteOutcomeUnknownException if the reply of a single-shard
   *     take (or, fields layout, of the combined take) was lost: it may or may not have been
   *     applied, and it is not re-sent
   * @throws DecrementFailedException if (documents layout) the server failed mid-drain and
   *     every drained amount was given back: nothing written
   * @throws CorruptShardException if a shard it reads holds a value that is not an integer
   *     within int64; nothing written
   * @throws StrandedBalanceException if the server failed mid-combine and the drained amounts
   *     could not be returned
   */
  public DecrementResult decrement(String counterId, long amount) {
    return decrement(counterId, amount, ChangeRecorder.NONE);
  }

  /**
   * {@link #decrement(String, long)}, with {@code recorder}'s update sent in every write it
   * makes (see {@link ChangeRecorder}): the changes recorded add up to {@code -amount} when it
   * returns, and to 0 when it throws {@link InsufficientBalanceException} or
   * {@link DecrementFailedException}.
   *
   * @throws IllegalArgumentException if the recorder's update writes a field the counter
   *     writes; nothing written
   */
  public DecrementResult decrement(String counterId, long amount, ChangeRecorder recorder) {
    checkId(counterId);
    checkAmount(amount);
    Objects.requireNonNull(recorder, "recorder");
    int shard = randomShard();
    return Deadline.within(Deadline.after(deadline), () -> {
      if (store.tryTake(counterId, shard, amount, recorder)) {
        return new DecrementResult(amount, 1, false);
      }
      return combiner.combine(counterId, amount, shard, recorder);
    });
  }

  /**
   * The sum of the shards (0 for a missing counter). With the fields layout this is one atomic
   * read; with documents it sums shard documents read at slightly different moments, so it may
   * mix before and after of concurrent writes, but it is never negative.
   *
   * @throws CorruptShardException if a shard holds a value that is not an integer within int64
   *     (a string, a double, a decimal with a fraction, null): the error names the shard and
   *     the value, and no total is given
   * @throws CounterOverflowException if the shards add up to more than int64 holds
   */
  public long total(String counterId) {
    checkId(counterId);
    return Deadline.within(Deadline.after(deadline), () -> ShardValue.total(counterId, store.read(counterId)));
  }

  /**
   * Every shard's value, index = shard number.
   *
   * @throws CorruptShardException as {@link #total}
   */
  public List<Long> shardValues(String counterId) {
    checkId(counterId);
    return Deadline.within(Deadline.after(deadline),
        () -> Arrays.stream(store.read(counterId)).boxed().toList());
  }

  public CounterLayout layout() {
    return layout;
  }

  public int shards() {
    return shards;
  }

  private int randomShard() {
    return shards == 1 ? 0 : ThreadLocalRandom.current().nextInt(shards);
  }

  private static void checkId(String counterId) {
    Checks.notBlank("counterId", counterId);
  }

  private static void checkAmount(long amount) {
    Checks.atLeast("amount", amount, 1L);
  }

  /** Builds a {@link ShardedCounter}. Not thread-safe; {@link #build()} copies the values. */
  public static final class Builder {
    private final MongoCollection<Document> collection;
    private CounterLayout layout = CounterLayout.DOCUMENTS;
    private int shards = 10;
    private String field = "balance";
    private LockService lockService;
    private Duration lockWaitTimeout = Duration.ofSeconds(5);
    private Duration deadline = Duration.ofSeconds(10);
    private int maxCombineAttempts = 16;
    private Ticker ticker = Ticker.system();
    private VersionPolicy versionPolicy;

    private Builder(MongoCollection<Document> collection) {
      this.collection = collection;
    }

    /** Where the shards live; default {@link CounterLayout#DOCUMENTS}. */
    public Builder layout(CounterLayout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /** Number of shards (>= 1; 1 is a plain single-document counter); default 10. */
    public Builder shards(int shards) {
      this.shards = Checks.atLeast("shards", shards, 1);
      return this;
    }

    /**
     * The counter's field name; default {@code balance}. Field layout: {@code
     * balance_shard_<i>}; document layout: the value field of each shard document.
     */
    public Builder field(String field) {
      this.field = checkFieldName(field);
      return this;
    }

    /** The lock that serialises multi-shard decrements; required for the documents layout. */
    public Builder lockService(LockService lockService) {
      this.lockService = Objects.requireNonNull(lockService, "lockService");
      return this;
    }

    /** How long a multi-shard decrement waits for the counter's lock; default 5 s. */
    public Builder lockWaitTimeout(Duration lockWaitTimeout) {
      this.lockWaitTimeout = Checks.positive("lockWaitTimeout", lockWaitTimeout);
      return this;
    }

    /**
     * The budget of one call, from its start: each of its MongoDB operations gets the time left
     * (a write also a short grace to learn its outcome), and the combine lock's wait is cut to
     * it; default 10 s (the lock wait and the drain after it).
     */
    public Builder deadline(Duration deadline) {
      this.deadline = Checks.positive("deadline", deadline);
      return this;
    }

    /** Fields layout: re-plans of a combining decrement before giving up; default 16. */
    public Builder maxCombineAttempts(int maxCombineAttempts) {
      this.maxCombineAttempts = Checks.atLeast("maxCombineAttempts", maxCombineAttempts, 1);
      return this;
    }

    /**
     * The counter lives in versioned documents (fields layout in a document that a
     * {@code VersionedUpdater} also updates, say): every counter write then raises the
     * policy's version field in the same write, so a versioned read-change-write that read the
     * balance before sees a conflict and re-reads instead of writing an old balance back.
     * Default: no version field is touched.
     */
    public Builder versionPolicy(VersionPolicy versionPolicy) {
      this.versionPolicy = Objects.requireNonNull(versionPolicy, "versionPolicy");
      return this;
    }

    /** The clock for the elapsed time in error messages; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public ShardedCounter build() {
      if (versionPolicy != null && (versionPolicy.field().equals(field)
          || field.startsWith(versionPolicy.field() + "_shard_"))) {
        throw new IllegalArgumentException("field " + Checks.quote(field)
            + " collides with the version field " + Checks.quote(versionPolicy.field()));
      }
      if (layout == CounterLayout.DOCUMENTS && lockService == null) {
        throw new IllegalArgumentException("layout DOCUMENTS needs a lockService: a decrement"
            + " larger than any one shard drains several shard documents under a lock");
      }
      return new ShardedCounter(this);
    }

    private static String checkFieldName(String field) {
      Checks.notBlank("field", field);
      if (field.startsWith("$") || field.contains(".") || field.indexOf('\0') >= 0
          || field.equals("_id") || field.equals("counter") || field.equals("shard")
          || field.equals(DocumentShardStore.OPS_FIELD)) {
        throw new IllegalArgumentException("field must be a plain field name (no '$' prefix,"
            + " no '.', no NUL, not _id/counter/shard/_ops), was " + Checks.quote(field));
      }
      return field;
    }
  }
}
