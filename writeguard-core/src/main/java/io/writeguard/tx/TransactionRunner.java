package io.writeguard.tx;

import io.writeguard.internal.Deadline;
import com.mongodb.MongoClientException;
import com.mongodb.MongoException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.TransactionOptions;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Backoff;
import io.writeguard.internal.Checks;
import io.writeguard.internal.Uninterrupted;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a body in a MongoDB transaction, retrying what MongoDB says is safe to retry, within a
 * deadline.
 *
 * <p>Why not the driver's {@code ClientSession.withTransaction}: its retry budget is a fixed
 * 120 seconds, far too long for a web request, it has no backoff between attempts (so hot
 * conflicts retry in lock-step), and it reports nothing. This runner follows the same rules
 * the driver documents, with our own budget:
 *
 * <ol>
 *   <li>Before anything runs, check that the server can do transactions (a replica set or a
 *       sharded cluster, read from the driver's view of the {@code hello} reply). A standalone
 *       server, including the embedded one, gets a {@link TransactionsUnsupportedException} at
 *       once: the body never runs outside a transaction.
 *   <li>Start a transaction ({@code snapshot} reads, {@code majority} writes, primary by
 *       default; the commit's server-side time limit is the deadline) and run the body.
 *   <li>If the body or the commit fails with the label {@code TransientTransactionError}
 *       (write conflict, primary step-down, ...) abort and run the whole body again after a
 *       backoff with jitter.
 *   <li>If the commit fails with {@code UnknownTransactionCommitResult}, commit again (commit
 *       is idempotent server-side) after a backoff; the body does not run again.
 *   <li>Any other MongoDB error aborts and becomes a {@link TransactionFailedException}; any
 *       other exception from the body aborts and is rethrown unchanged (so business
 *       exceptions reach the caller as they are).
 * </ol>
 *
 * <p>The deadline (default 10 s) and the attempt limit are checked before each retry; a retry
 * is never started when its backoff would end past the deadline. Each retry emits
 * {@link WriteGuardListener#onTransactionRetry(String, int)} with the label that caused it.
 *
 * <p>Immutable and thread-safe; one runner can serve every thread (each run opens its own
 * session).
 */
public final class TransactionRunner {
  /** Label on errors after which the whole transaction may be run again. */
  public static final String TRANSIENT_TRANSACTION_ERROR = MongoException.TRANSIENT_TRANSACTION_ERROR_LABEL;
  /** Label on commit errors after which the commit (only) may be sent again. */
  public static final String UNKNOWN_TRANSACTION_COMMIT_RESULT =
      MongoException.UNKNOWN_TRANSACTION_COMMIT_RESULT_LABEL;

  private static final Logger log = LoggerFactory.getLogger(TransactionRunner.class);

  private final SessionSource sessions;
  private final Duration deadline;
  private final int maxAttempts;
  private final Backoff backoff;
  private final TransactionOptions options;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final WriteGuardListener listener;

  private TransactionRunner(Builder b, TransactionOptions options) {
    this.sessions = b.sessions;
    this.deadline = b.deadline;
    this.maxAttempts = b.maxAttempts;
    this.backoff = Backoff.exponential(b.initialBackoff, b.maxBackoff);
    this.options = options;
    this.ticker = b.ticker;
    this.sleeper = b.sleeper;
    this.listener = WriteGuardListener.safe(b.listener);
  }

  /** A builder for transactions on {@code client}'s deployment. */
  public static Builder builder(MongoClient client) {
    return new Builder(new DriverSessionSource(Objects.requireNonNull(client, "client")));
  }

  /** For unit tests: sessions from a fake. */
  static Builder builder(SessionSource sessions) {
    return new Builder(sessions);
  }

  /** True when the server can run transactions (checked once, then cached). */
  public boolean transactionsSupported() {
    return sessions.whyTransactionsUnsupported().isEmpty();
  }

  /**
   * Runs {@code work} in a transaction and returns its result once committed.
   *
   * @throws TransactionsUnsupportedException if the server cannot run transactions (nothing ran)
   * @throws TransactionRetriesExhaustedException if retryable errors outlasted the budget
   * @throws TransactionFailedException on a MongoDB error that is not retryable
   * @throws WriteGuardInterruptedException if interrupted during a backoff (flag restored)
   */
  public <T> T run(TransactionWork<T> work) {
    Objects.requireNonNull(work, "work");
    long start = ticker.nanoTime();
    // The check, each attempt's operations and its commit end by the deadline (see start).
    return Deadline.within(Deadline.after(deadline), () -> runWithin(work, start));
  }

  private <T> T runWithin(TransactionWork<T> work, long start) {
    Optional<String> unsupported;
    try {
      unsupported = sessions.whyTransactionsUnsupported();
    } catch (MongoException e) {
      throw failed("could not reach the server to check for transaction support", 0, start, e);
    }
    if (unsupported.isPresent()) {
      throw new TransactionsUnsupportedException(
          "cannot run a transaction: " + unsupported.get() + "; nothing was executed");
    }
    try (TxSession session = open()) {
      int attempt = 0;
      while (true) {
        attempt++;
        start(session);
        T result;
        try {
          result = work.execute(session.clientSession());
        } catch (Throwable e) { // an undeclared checked exception too: aborted, rethrown as is
          abortQuietly(session);
          if (e instanceof MongoException me && me.hasErrorLabel(TRANSIENT_TRANSACTION_ERROR)) {
            backoffOrGiveUp(TRANSIENT_TRANSACTION_ERROR, attempt, start, me);
            continue;
          }
          if (e instanceof MongoException me) {
            throw failed("the body failed", attempt, start, me);
          }
          throw e;
        }
        if (commit(session, attempt, start)) {
          return result;
        }
      }
    }
  }

  /** Commits, retrying the commit alone on an unknown result; false means run the body again. */
  private boolean commit(TxSession session, int attempt, long start) {
    int commitAttempt = 0;
    while (true) {
      commitAttempt++;
      try {
        session.commitTransaction();
        return true;
      } catch (MongoException e) {
        if (e.hasErrorLabel(UNKNOWN_TRANSACTION_COMMIT_RESULT)) {
          backoffOrGiveUp(UNKNOWN_TRANSACTION_COMMIT_RESULT, commitAttempt, start, e);
        } else if (e.hasErrorLabel(TRANSIENT_TRANSACTION_ERROR)) {
          abortQuietly(session);
          backoffOrGiveUp(TRANSIENT_TRANSACTION_ERROR, attempt, start, e);
          return false;
        } else {
          abortQuietly(session);
          throw failed("the commit failed", attempt, start, e);
        }
      }
    }
  }

  private TxSession open() {
    try {
      return sessions.open();
    } catch (MongoClientException e) {
      throw new TransactionsUnsupportedException("the driver refused to open a session: "
          + e.getMessage() + "; nothing was executed", e);
    }
  }

  private void start(TxSession session) {
    try {
      // The whole attempt, the user's operations in it included, gets the time left.
      session.startTransaction(Deadline.boundedTransaction(options));
    } catch (MongoClientException e) {
      // The driver refuses before sending anything; the body has not run.
      throw new TransactionsUnsupportedException(
          "the driver refused to start a transaction: " + e.getMessage()
              + "; nothing was executed", e);
    }
  }

  private void backoffOrGiveUp(String label, int attempt, long start, MongoException cause) {
    Duration backoff = backoff(attempt);
    long elapsed = ticker.nanoTime() - start;
    boolean outOfTime = elapsed + backoff.toNanos() >= deadline.toNanos()
        || Deadline.passesWithin(backoff); // the caller's deadline, if earlier
    if (attempt >= maxAttempts || outOfTime) {
      String ran = attempt >= maxAttempts ? "attempts (" + maxAttempts + ")" : "deadline ("
          + deadline.toMillis() + "ms)";
      throw new TransactionRetriesExhaustedException(
          "transaction gave up: " + ran + " ran out after " + attempt + " attempt(s) in "
              + Duration.ofNanos(elapsed).toMillis() + "ms; last error carried " + label + ": "
              + cause.getMessage(),
          attempt, Duration.ofNanos(elapsed), label, cause);
    }
    listener.onTransactionRetry(label, attempt);
    try {
      sleeper.sleep(backoff);
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("backing off before a transaction retry", e);
    }
  }

  /** Exponential backoff capped at {@code maxBackoff}, with "equal jitter" (half fixed). */
  Duration backoff(int attempt) {
    return Duration.ofNanos(backoff.equalJitterNanos(attempt, ThreadLocalRandom.current()));
  }

  private TransactionFailedException failed(String what, int attempt, long start,
      MongoException e) {
    Duration elapsed = Duration.ofNanos(ticker.nanoTime() - start);
    return new TransactionFailedException("transaction failed: " + what + " on attempt "
        + attempt + " after " + elapsed.toMillis() + "ms with a non-retryable error (code "
        + e.getCode() + ", labels " + e.getErrorLabels() + "): " + e.getMessage(),
        attempt, elapsed, e);
  }

  /**
   * Aborts, with the interrupt set aside ({@link Uninterrupted}): a body that failed because it
   * was cancelled would otherwise leave its transaction, and the documents it wrote, held on the
   * server until the transaction's lifetime limit ends it.
   */
  private static void abortQuietly(TxSession session) {
    try {
      if (session.hasActiveTransaction()) {
        Uninterrupted.run(session::abortTransaction);
      }
    } catch (RuntimeException e) {
      // The server aborts an unfinished transaction on its own; the original error matters more.
      log.debug("abort after a failed transaction attempt failed; ignored", e);
    }
  }

  public Duration deadline() {
    return deadline;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** Builds a {@link TransactionRunner}. Not thread-safe; {@link #build()} copies the values. */
  public static final class Builder {
    private final SessionSource sessions;
    private Duration deadline = Duration.ofSeconds(10);
    private int maxAttempts = 50;
    private Duration initialBackoff = Duration.ofMillis(5);
    private Duration maxBackoff = Duration.ofMillis(500);
    private TransactionOptions options = TransactionOptions.builder()
        .readConcern(ReadConcern.SNAPSHOT)
        .writeConcern(WriteConcern.MAJORITY)
        .readPreference(ReadPreference.primary())
        .build();
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    private WriteGuardListener listener = WriteGuardListener.NOOP;

    private Builder(SessionSource sessions) {
      this.sessions = sessions;
    }

    /** Total budget for all attempts of one run; default 10 s (the driver's is 120 s). */
    public Builder deadline(Duration deadline) {
      this.deadline = Checks.positive("deadline", deadline);
      return this;
    }

    /** Most times the body is started (and most commit tries); default 50. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Checks.atLeast("maxAttempts", maxAttempts, 1);
      return this;
    }

    /** First backoff (doubling up to {@link #maxBackoff}); default 5 ms. */
    public Builder initialBackoff(Duration initialBackoff) {
      this.initialBackoff = Checks.positive("initialBackoff", initialBackoff);
      return this;
    }

    /** Longest backoff; default 500 ms. */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = Checks.positive("maxBackoff", maxBackoff);
      return this;
    }

    /** Read/write concern and read preference; default snapshot, majority, primary. */
    public Builder transactionOptions(TransactionOptions options) {
      this.options = Objects.requireNonNull(options, "transactionOptions");
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public TransactionRunner build() {
      Checks.notBelow("maxBackoff", maxBackoff, "initialBackoff", initialBackoff);
      TransactionOptions effective = options;
      if (effective.getMaxCommitTime(TimeUnit.MILLISECONDS) == null) {
        // A commit the server keeps working on past our deadline would outlive the caller.
        // Not stored back into the builder: a later deadline(...) must still take effect.
        effective = TransactionOptions.merge(TransactionOptions.builder()
            .maxCommitTime(deadline.toMillis(), TimeUnit.MILLISECONDS).build(), options);
      }
      return new TransactionRunner(this, effective);
    }
  }
}
