package io.writeguard.idempotency;

import static io.writeguard.idempotency.IdempotencyRecords.DONE;
import static io.writeguard.idempotency.IdempotencyRecords.UNRECORDED;

import com.mongodb.client.MongoCollection;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Backoff;
import io.writeguard.internal.Checks;
import io.writeguard.internal.Deadline;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.bson.BSONException;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonDocumentWriter;
import org.bson.BsonNull;
import org.bson.BsonReader;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a side effect (send a mail, charge a card) at most once per key, however many times the
 * surrounding update is retried, and hands every caller the same outcome.
 *
 * <p>One document per key, the key being the {@code _id}, so the unique {@code _id} index
 * decides who claims it (no other index, no TTL: the embedded server ignores TTL):
 * <pre>{@code
 * { _id: "<key>", state: "pending" | "done", owner: "<random token of the claimer>",
 *   claimedAt: ISODate (server clock), leaseMillis: 30000, takeovers: 0,
 *   outcome: <what the action returned>, completedAt: ISODate (server clock) }
 * }</pre>
 *
 * <p>{@code once(key, action)}:
 * <ol>
 *   <li>Claim: an upsert filtered on {@code {_id: key, owner: myToken}}. The token is new, so
 *       the filter can only match a document that does not exist yet: either this inserts the
 *       claim ({@code claimedAt} set by {@code $currentDate}) or it fails with duplicate key
 *       (11000) because someone else's record exists. One round trip, atomic.
 *   <li>Claimed: run the action. Success stores the outcome with a filter on our owner token,
 *       so a claimer whose lease was taken over cannot overwrite the new owner's record (it
 *       gets {@link OutcomeNotRecordedException}). Failure deletes our claim (again only if
 *       still ours), so a later call can retry, and rethrows. An outcome the codecs cannot
 *       encode marks the record done with no outcome (field {@code unrecorded} says why): the
 *       action ran, so it must not run again; this caller and later ones get
 *       {@link OutcomeNotRecordedException} until {@link #forget(String)}.
 *   <li>Not claimed: read the record. Done: return the stored outcome. Pending: if its lease
 *       ran out by the server's clock ({@code $expr: claimedAt + leaseMillis < $$NOW}), take
 *       it over with a conditional update on the owner we saw (two takers cannot both match);
 *       else wait with backoff and look again, up to the wait timeout, then throw
 *       {@link IdempotencyInProgressException}. Gone (released): claim again.
 * </ol>
 * A claim whose reply was lost is sent again with the same token (it matches its own claim);
 * one interrupted on its way is deleted and the caller gets
 * {@link io.writeguard.WriteGuardInterruptedException} without the action having run.
 * Storing the outcome and deleting a failed claim record work already done, so they are not
 * cut by the caller's deadline ({@code Deadlines.within}): they run under their own budget of
 * 10 s, the caller waits for them at most 500 ms past its deadline (past the action's end when
 * it ended after the deadline), and one not done by then goes on in the
 * background while the caller gets {@link OutcomeNotRecordedException} saying so. They are
 * sent with the thread's interrupt set aside and restored after (the driver refuses every call
 * of an interrupted thread, and an action cancelled as it finished still had its effect).
 *
 * <p>Expiry is judged on the server clock only, so clients with skewed clocks agree. A lease must
 * outlast the action: when an action runs past its lease, a second caller may run it too.
 *
 * <p>Outcomes are encoded with the collection's codec registry (strings, numbers, documents,
 * records with the driver's record codec, ...). Records stay until {@link #forget(String)}.
 * Immutable and thread-safe.
 */
public final class IdempotencyStore {
  private static final Logger log = LoggerFactory.getLogger(IdempotencyStore.class);

  private final MongoCollection<Document> collection;
  private final IdempotencyRecords records;
  private final Duration waitTimeout;
  private final Backoff pollBackoff;
  private final Ticker ticker;
  private final Sleeper sleeper;

  private IdempotencyStore(Builder b) {
    this.collection = b.collection;
    this.records = new IdempotencyRecords(b.collection, b.lease, b.ticker);
    this.waitTimeout = b.waitTimeout;
    this.pollBackoff = Backoff.exponential(b.minPoll, b.maxPoll);
    this.ticker = b.ticker;
    this.sleeper = b.sleeper;
  }

  public static Builder builder(MongoCollection<Document> collection) {
    return new Builder(Objects.requireNonNull(collection, "collection"));
  }

  /**
   * Runs {@code action} if no call with this key has completed it, and returns its outcome;
   * otherwise returns the stored outcome without running it.
   *
   * @throws IdempotencyInProgressException another claim is still running after the wait
   * @throws OutcomeNotRecordedException the action ran but its outcome could not be stored
   * @throws IdempotentActionException the action threw a checked exception (claim released);
   *     unchecked ones are rethrown as they are
   * @throws IllegalArgumentException blank key, or no codec for {@code outcomeType}
   */
  public <T> OnceResult<T> once(String key, Class<T> outcomeType,
      Callable<? extends T> action) {
    Checks.notBlank("key", key);
    Objects.requireNonNull(outcomeType, "outcomeType");
    Objects.requireNonNull(action, "action");
    Codec<T> codec = codecFor(outcomeType);
    return execute(key, codec, action);
  }

  /** {@link #once(String, Class, Callable)} for an action without a result; true if it ran here. */
  public boolean once(String key, Runnable action) {
    Checks.notBlank("key", key);
    Objects.requireNonNull(action, "action");
    return execute(key, null, () -> {
      action.run();
      return null;
    }).executed();
  }

  /**
   * Deletes the completed record of {@code key} (one with an outcome or one marked
   * {@code unrecorded}), so the key can be used again.
   */
  public boolean forget(String key) {
    Checks.notBlank("key", key);
    return records.forget(key);
  }

  private <T> OnceResult<T> execute(String key, Codec<T> codec, Callable<? extends T> action) {
    String token = UUID.randomUUID().toString();
    long start = ticker.nanoTime();
    // Every round trip gets the time left before the caller's deadline, if any; the wait for
    // another claim's outcome is cut to it (the wait timeout counts from the first check, so
    // a zero wait still looks once).
    Duration wait = Deadline.capWait(waitTimeout);
    int checks = 0;
    while (true) {
      if (records.claim(key, token)) {
        return run(key, token, action);
      }
      checks++;
      BsonDocument record = records.read(key);
      if (record == null) {
        continue; // released between our claim and our read: nobody holds it, claim again
      }
      String owner = record.getString("owner").getValue();
      {
        if (DONE.equals(record.getString("state").getValue())) {
          if (record.containsKey(UNRECORDED)) {
            throw new OutcomeNotRecordedException(key, "an earlier call ran the action, but its"
                + " outcome could not be stored (" + record.getString(UNRECORDED).getValue()
                + "); the key stays done without an outcome, so the action does not run again"
                + " until forget(key)", null);
          }
          return new OnceResult<>(decode(key, codec, record.get("outcome")), false);
        }
        if (records.takeOver(key, owner, token)) {
          log.info("idempotency key '{}': took over claim {} after its lease ran out", key,
              owner);
          return run(key, token, action);
        }
      }
      long waited = ticker.nanoTime() - start;
      long left = wait.toNanos() - waited;
      if (left <= 0) {
        throw new IdempotencyInProgressException(key, Duration.ofNanos(waited), owner, checks);
      }
      sleep(Duration.ofNanos(Math.min(left, poll(checks).toNanos())), key);
    }
  }

  private <T> OnceResult<T> run(String key, String token, Callable<? extends T> action) {
    long started = ticker.nanoTime();
    T value;
    try {
      value = action.call();
    } catch (Throwable failure) {
      records.release(key, token, failure);
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      if (failure instanceof InterruptedException e) {
        throw new WriteGuardInterruptedException(
            "running the action for idempotency key '" + key + "'", e);
      }
      throw new IdempotentActionException(key, failure);
    }
    BsonValue encoded;
    try {
      encoded = encode(value);
    } catch (RuntimeException unencodable) {
      throw unrecorded(key, token, started, "the outcome, a " + value.getClass().getName()
          + ", cannot be encoded with the collection's codecs: " + unencodable.getMessage(),
          unencodable);
    }
    try {
      records.complete(key, token, encoded, started);
    } catch (BSONException unsendable) {
      // Refused by the driver before sending (the 16 MB limit): nothing was written.
      throw unrecorded(key, token, started, "the outcome, a " + value.getClass().getName()
          + ", cannot be stored: " + unsendable.getMessage(), unsendable);
    }
    return new OnceResult<>(value, true);
  }

  /**
   * The action ran but its outcome cannot be stored. A claim left pending would let it run
   * again once its lease ran out, so the key is marked done without an outcome, and this caller
   * and every later one are told the action ran but its outcome was not recorded.
   */
  private OutcomeNotRecordedException unrecorded(String key, String token, long started,
      String why, RuntimeException cause) {
    try {
      records.completeUnrecorded(key, token, why, started);
    } catch (OutcomeNotRecordedException storing) {
      storing.addSuppressed(cause);
      return storing;
    }
    return new OutcomeNotRecordedException(key, why + "; the key is marked done without an"
        + " outcome, so the action does not run again until forget(key)", cause);
  }

  /**
   * Encodes an outcome as the collection's codecs would when storing it, so that a value they
   * cannot encode is found before the write and not by it.
   */
  @SuppressWarnings("unchecked")
  private BsonValue encode(Object value) {
    if (value == null) {
      return BsonNull.VALUE;
    }
    Codec<Object> codec = (Codec<Object>) collection.getCodecRegistry().get(value.getClass());
    BsonDocument holder = new BsonDocument();
    BsonDocumentWriter writer = new BsonDocumentWriter(holder);
    writer.writeStartDocument();
    writer.writeName("outcome");
    codec.encode(writer, value, EncoderContext.builder().build());
    writer.writeEndDocument();
    return holder.get("outcome");
  }

  private Duration poll(int checks) {
    return pollBackoff.ceiling(checks);
  }

  private void sleep(Duration duration, String key) {
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException(
          "waiting for another claim on idempotency key '" + key + "'", e);
    }
  }

  private <T> Codec<T> codecFor(Class<T> type) {
    try {
      return collection.getCodecRegistry().get(type);
    } catch (CodecConfigurationException e) {
      throw new IllegalArgumentException("outcomeType " + type.getName()
          + " has no codec in the collection's codec registry", e);
    }
  }

  private static <T> T decode(String key, Codec<T> codec, BsonValue stored) {
    if (codec == null || stored == null || stored.isNull()) {
      return null;
    }
    BsonReader reader = new BsonDocumentReader(new BsonDocument("outcome", stored));
    reader.readStartDocument();
    reader.readName();
    try {
      return codec.decode(reader, DecoderContext.builder().build());
    } catch (RuntimeException e) {
      throw new IllegalStateException("idempotency key '" + key + "': the stored outcome ("
          + stored.getBsonType() + ") cannot be read as " + codec.getEncoderClass().getName(), e);
    }
  }

  /** Builds an {@link IdempotencyStore}. Not thread-safe; {@link #build()} copies the values. */
  public static final class Builder {
    private final MongoCollection<Document> collection;
    private Duration lease = Duration.ofSeconds(30);
    private Duration waitTimeout = Duration.ofSeconds(5);
    private Duration minPoll = Duration.ofMillis(5);
    private Duration maxPoll = Duration.ofMillis(200);
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();

    private Builder(MongoCollection<Document> collection) {
      this.collection = collection;
    }

    /** How long a claim is honoured before another caller may take it over; default 30 s. */
    public Builder lease(Duration lease) {
      Checks.positive("lease", lease);
      Checks.atLeast("lease in ms", lease.toMillis(), 1L);
      this.lease = lease;
      return this;
    }

    /** How long a caller waits for someone else's claim to finish; default 5 s; 0: never. */
    public Builder waitTimeout(Duration waitTimeout) {
      this.waitTimeout = Checks.notNegative("waitTimeout", waitTimeout);
      return this;
    }

    /** First and longest pause between looks at someone else's claim; default 5-200 ms. */
    public Builder pollInterval(Duration min, Duration max) {
      this.minPoll = Checks.positive("minPoll", min);
      this.maxPoll = Checks.positive("maxPoll", max);
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

    public IdempotencyStore build() {
      Checks.notBelow("maxPoll", maxPoll, "minPoll", minPoll);
      return new IdempotencyStore(this);
    }
  }
}
