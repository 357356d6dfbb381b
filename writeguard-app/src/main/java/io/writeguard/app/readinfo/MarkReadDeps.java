package io.writeguard.app.readinfo;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.adaptive.AdaptivePolicy;
import io.writeguard.internal.Checks;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.update.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * What the mark-as-read strategies need: the collection, the lock services, the listener, the
 * retry policy and the lock wait. Built once by the lab run or the HTTP service and handed to
 * {@link MarkReadStrategies#create}. The lock services belong to the caller, who closes them.
 * Immutable and thread-safe (as thread-safe as the services it holds, which all are).
 */
public final class MarkReadDeps {
  /**
   * The default retry policy of the optimistic route: 30 attempts, 10 s, full-jitter backoff
   * from 5 ms doubling to 500 ms. Chosen by measurement with 64 clients on one hot document
   * (docs/lab.md): without backoff the writers keep colliding; a window growing to 500 ms
   * spreads those that collided, so the next round has few contenders.
   */
  public static final RetryPolicy DEFAULT_RETRY = RetryPolicy.builder()
      .maxAttempts(30)
      .deadline(Duration.ofSeconds(10))
      .backoff(Duration.ofMillis(5), Duration.ofMillis(500))
      .build();

  private final MongoCollection<Document> collection;
  private final LockService localLocks;
  private final LockService mongoLocks;
  private final LockService redisLocks;
  private final LockService adaptiveLocks;
  private final WriteGuardListener listener;
  private final RetryPolicy retryPolicy;
  private final AdaptivePolicy adaptivePolicy;
  private final Duration lockWait;
  private final Ticker ticker;
  private final Runnable betweenReadAndWrite;
  private final boolean versionFilterUnderLock;
  private final boolean groupCommit;

  private MarkReadDeps(Builder b) {
    this.collection = b.collection;
    this.listener = WriteGuardListener.safe(b.listener);
    this.localLocks = b.localLocks != null ? b.localLocks
        : LocalLockService.builder().listener(listener).ticker(b.ticker).build();
    this.mongoLocks = b.mongoLocks;
    this.redisLocks = b.redisLocks;
    this.adaptiveLocks = b.adaptiveLocks != null ? b.adaptiveLocks : localLocks;
    this.retryPolicy = b.retryPolicy;
    this.adaptivePolicy = b.adaptivePolicy;
    this.lockWait = b.lockWait;
    this.ticker = b.ticker;
    this.betweenReadAndWrite = b.betweenReadAndWrite;
    this.versionFilterUnderLock = b.versionFilterUnderLock;
    this.groupCommit = b.groupCommit;
  }

  /** Deps for marks on {@code collection} (write concern must be acknowledged). */
  public static Builder builder(MongoCollection<Document> collection) {
    return new Builder(collection);
  }

  public MongoCollection<Document> collection() {
    return collection;
  }

  /** The in-process lock of {@code local-lock}. */
  public LockService localLocks() {
    return localLocks;
  }

  /** The MongoDB lease lock of {@code mongo-lock}, if one was given. */
  public Optional<LockService> mongoLocks() {
    return Optional.ofNullable(mongoLocks);
  }

  /** The Redis lock of {@code redis-lock}, if one was given. */
  public Optional<LockService> redisLocks() {
    return Optional.ofNullable(redisLocks);
  }

  /** The lock {@code adaptive} queues hot documents on; {@link #localLocks()} by default. */
  public LockService adaptiveLocks() {
    return adaptiveLocks;
  }

  /** Already wrapped so that it never throws. */
  public WriteGuardListener listener() {
    return listener;
  }

  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  public AdaptivePolicy adaptivePolicy() {
    return adaptivePolicy;
  }

  /** How long a lock strategy waits for a document's lock. */
  public Duration lockWait() {
    return lockWait;
  }

  public Ticker ticker() {
    return ticker;
  }

  /**
   * Whether the lease-lock strategies also filter their fenced replace on the version read
   * (true by default, see {@link Builder#versionFilterUnderLock}).
   */
  public boolean versionFilterUnderLock() {
    return versionFilterUnderLock;
  }

  /**
   * Whether {@code optimistic}, {@code adaptive} and the lock strategies combine concurrent
   * marks of one document into one read and one write, under one lock hold for the lock
   * strategies (group commit; true by default, as in the library).
   */
  public boolean groupCommit() {
    return groupCommit;
  }

  /** Run by the read-change-write strategies between their read and their write (tests). */
  Runnable betweenReadAndWrite() {
    return betweenReadAndWrite;
  }

  /** Configures {@link MarkReadDeps}; not thread-safe. */
  public static final class Builder {
    private final MongoCollection<Document> collection;
    private LockService localLocks;
    private LockService mongoLocks;
    private LockService redisLocks;
    private LockService adaptiveLocks;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private RetryPolicy retryPolicy = DEFAULT_RETRY;
    private AdaptivePolicy adaptivePolicy = AdaptivePolicy.defaults();
    private Duration lockWait = Duration.ofSeconds(5);
    private Ticker ticker = Ticker.system();
    private Runnable betweenReadAndWrite = () -> {};
    private boolean versionFilterUnderLock = true;
    private boolean groupCommit = true;

    private Builder(MongoCollection<Document> collection) {
      this.collection = Objects.requireNonNull(collection, "collection must not be null");
      if (!collection.getWriteConcern().isAcknowledged()) {
        throw new IllegalArgumentException("collection write concern must be acknowledged,"
            + " was " + collection.getWriteConcern());
      }
    }

    /** In-process lock for {@code local-lock}; default a new {@link LocalLockService}. */
    public Builder localLocks(LockService locks) {
      this.localLocks = Objects.requireNonNull(locks, "localLocks must not be null");
      return this;
    }

    /** MongoDB lease lock for {@code mongo-lock}; without it that strategy is refused. */
    public Builder mongoLocks(LockService locks) {
      this.mongoLocks = Objects.requireNonNull(locks, "mongoLocks must not be null");
      return this;
    }

    /** Redis lock for {@code redis-lock}; without it that strategy is refused. */
    public Builder redisLocks(LockService locks) {
      this.redisLocks = Objects.requireNonNull(locks, "redisLocks must not be null");
      return this;
    }

    /** The lock {@code adaptive} takes for a hot document; default the local lock. */
    public Builder adaptiveLocks(LockService locks) {
      this.adaptiveLocks = Objects.requireNonNull(locks, "adaptiveLocks must not be null");
      return this;
    }

    /** Hears attempts, conflicts, retries, outcomes and fenced rejections. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /**
     * Bounds the optimistic route (attempts, deadline, backoff) and, by its attempts, how often
     * a lock strategy re-reads when a writer that bypasses the lock moved the version.
     */
    public Builder retryPolicy(RetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy must not be null");
      return this;
    }

    public Builder adaptivePolicy(AdaptivePolicy policy) {
      this.adaptivePolicy = Objects.requireNonNull(policy, "adaptivePolicy must not be null");
      return this;
    }

    /** How long a lock strategy waits for the lock; default 5 s. */
    public Builder lockWait(Duration wait) {
      this.lockWait = Checks.positive("lockWait", wait);
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /**
     * For tests that stage interleavings: runs between the read and the write of every
     * read-change-write attempt ({@code naive}, {@code optimistic}, {@code adaptive}, the lock
     * strategies). Default: nothing.
     */
    public Builder betweenReadAndWrite(Runnable hook) {
      this.betweenReadAndWrite = Objects.requireNonNull(hook, "betweenReadAndWrite must not be null");
      return this;
    }

    /**
     * Whether {@code mongo-lock} and {@code redis-lock} filter their fenced replace on the
     * version read as well as on the fence. Default true: the service mixes strategies per
     * request, and the filter keeps a writer that bypasses the lock from being erased. The lab
     * turns it off to write the way a user of a lock does, fenced only, so that a lock or fence
     * that lets two writers in shows up as lost updates or fenced rejections instead of being
     * absorbed by the version check.
     */
    public Builder versionFilterUnderLock(boolean on) {
      this.versionFilterUnderLock = on;
      return this;
    }

    /**
     * Whether {@code optimistic}, {@code adaptive} and the lock strategies use group commit
     * (default true, the library's default). Off, every mark runs its own compare-and-set loop
     * or takes the lock for itself: the way to see version conflicts between the threads of one
     * process, to make every mark of one process meet the others at the lock, and to stage an
     * interleaving in which two marks read before either writes.
     */
    public Builder groupCommit(boolean on) {
      this.groupCommit = on;
      return this;
    }

    public MarkReadDeps build() {
      return new MarkReadDeps(this);
    }
  }
}
