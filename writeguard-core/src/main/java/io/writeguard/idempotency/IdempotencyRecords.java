package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.MustFinish;
import io.writeguard.update.WriteOutcomes;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records of an {@link IdempotencyStore}, one per key, and every read and write on them.
 *
 * <p>Why it is built this way. Each write that changes a claim is filtered on the token of the
 * caller that holds it, so a caller whose lease was taken over cannot change the new owner's
 * record. A write whose reply was lost may have been applied: a claim or a completion is sent
 * again with the same token (it matches its own earlier write), a takeover is settled by reading
 * the record. Storing the outcome and deleting a claim record work already done, so they run under
 * their own budget, not the caller's deadline, with the interrupt set aside
 * ({@link MustFinish}): an action that ended after the deadline, or was cancelled as it
 * finished, still had its effect. Immutable and thread-safe.
 */
final class IdempotencyRecords {
  static final String PENDING = "pending";
  static final String DONE = "done";
  /** Set, instead of an outcome, on a done record whose outcome could not be encoded. */
  static final String UNRECORDED = "unrecorded";
  // The store's own log, as it was before these writes had a class of their own.
  private static final Logger log = LoggerFactory.getLogger(IdempotencyStore.class);
  private static final UpdateOptions UPSERT = new UpdateOptions().upsert(true);
  private static final int STORE_TRIES = 3;
  private static final Bson LEASE_EXPIRED = Filters.expr(new Document("$lt", List.of(
      new Document("$add", List.of("$claimedAt", "$leaseMillis")), "$$NOW")));

  private final MongoCollection<Document> collection;
  private final MongoCollection<BsonDocument> raw;
  private final Duration lease;
  private final Ticker ticker;

  IdempotencyRecords(MongoCollection<Document> collection, Duration lease, Ticker ticker) {
    this.collection = collection;
    this.raw = collection.withDocumentClass(BsonDocument.class);
    this.lease = lease;
    this.ticker = ticker;
  }

  /** The record of {@code key}, or null when there is none. */
  BsonDocument read(String key) {
    return Deadline.bounded(raw).find(eq("_id", key)).first();
  }

  /** Deletes the completed record of {@code key}: true if there was one. */
  boolean forget(String key) {
    return Deadline.boundedWrite(collection).deleteOne(and(eq("_id", key), eq("state", DONE)))
        .getDeletedCount() == 1;
  }

  /**
   * Claims {@code key} with {@code token}: true if ours, false if someone else's record exists.
   * A claim whose reply was lost (it may have been applied) is sent again with the same token,
   * which matches its own claim if the first one was applied: harmless, like a re-sent
   * completion. A claim interrupted on its way or while waiting for its reply is given up: the
   * claim, if applied, is deleted with the interrupt set aside, and the caller gets
   * {@link WriteGuardInterruptedException} without the action having run. A claim that stays
   * in doubt after {@value #STORE_TRIES} sends is deleted the same way and its error thrown.
   */
  boolean claim(String key, String token) {
    RuntimeException last = null;
    for (int send = 1; send <= STORE_TRIES; send++) {
      try {
        return tryClaim(key, token);
      } catch (RuntimeException e) {
        if (e instanceof MongoInterruptedException || Thread.currentThread().isInterrupted()) {
          release(key, token, e);
          InterruptedException cause = new InterruptedException(e.getMessage());
          cause.initCause(e);
          throw new WriteGuardInterruptedException("claiming idempotency key '" + key + "'",
              cause);
        }
        if (!WriteOutcomes.isOutcomeUnknown(e) && !WriteOutcomes.certainlyNotApplied(e)) {
          release(key, token, e);
          throw e;
        }
        last = e;
        Deadline deadline = Deadline.current();
        if (deadline != null && deadline.passed()) {
          break; // the wait is over: no more sends, the claim is given up below
        }
        log.warn("idempotency key '{}': claiming it failed (send {}), sending it again", key,
            send, e);
      }
    }
    release(key, token, last);
    throw last;
  }

  private boolean tryClaim(String key, String token) {
    try {
      Deadline.boundedWrite(collection).updateOne(and(eq("_id", key), eq("owner", token)),
          Updates.combine(
              Updates.set("state", PENDING),
              Updates.set("leaseMillis", lease.toMillis()),
              Updates.set("takeovers", 0),
              Updates.currentDate("claimedAt")), UPSERT);
      return true;
    } catch (MongoWriteException e) {
      if (ErrorCategory.fromErrorCode(e.getCode()) == ErrorCategory.DUPLICATE_KEY) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Takes an expired claim over: true if it is ours now. A takeover whose reply was lost (it
   * may have been applied) is settled by reading the record: ours if it carries our token. If
   * even that cannot be read, a takeover that was applied is deleted with the interrupt set
   * aside (as an abandoned claim is), so the key is not blocked by a claim nobody runs.
   */
  boolean takeOver(String key, String expiredOwner, String token) {
    try {
      return tryTakeOver(key, expiredOwner, token);
    } catch (RuntimeException e) {
      if (!WriteOutcomes.isOutcomeUnknown(e) && !WriteOutcomes.certainlyNotApplied(e)) {
        throw e;
      }
      log.warn("idempotency key '{}': taking the expired claim over failed; checking whether it"
          + " was applied", key, e);
      try {
        BsonDocument now = read(key);
        return now != null && token.equals(now.getString("owner").getValue())
            && PENDING.equals(now.getString("state").getValue());
      } catch (RuntimeException unread) {
        e.addSuppressed(unread);
        release(key, token, e);
        throw e;
      }
    }
  }

  private boolean tryTakeOver(String key, String expiredOwner, String token) {
    return Deadline.boundedWrite(collection).updateOne(
        and(eq("_id", key), eq("state", PENDING), eq("owner", expiredOwner), LEASE_EXPIRED),
        Updates.combine(
            Updates.set("owner", token),
            Updates.set("leaseMillis", lease.toMillis()),
            Updates.inc("takeovers", 1),
            Updates.currentDate("claimedAt"))).getMatchedCount() == 1;
  }

  /**
   * Marks our claim done with {@code outcome}, the encoded value of an action started at
   * {@code started} (ticker nanos).
   *
   * @throws OutcomeNotRecordedException the claim is not ours any more, or storing failed
   */
  void complete(String key, String token, BsonValue outcome, long started) {
    complete(key, token, Updates.combine(
        Updates.set("state", DONE),
        Updates.set("outcome", outcome),
        Updates.currentDate("completedAt")), started);
  }

  /** Marks our claim done without an outcome, saying {@code why} in field {@code unrecorded}. */
  void completeUnrecorded(String key, String token, String why, long started) {
    complete(key, token, Updates.combine(
        Updates.set("state", DONE),
        Updates.set(UNRECORDED, why),
        Updates.currentDate("completedAt")), started);
  }

  /**
   * Stores what the action came to, on the claim we own. It records work already done, so it
   * runs under its own budget ({@link MustFinish}), not the caller's time left: an action that
   * ended after the caller's deadline still had its effect, and a claim left pending would let
   * it run again once its lease ran out. Sent with the interrupt set aside for the same reason
   * (an action cancelled as it finished still had its effect).
   */
  private void complete(String key, String token, Bson completion, long started) {
    long matched;
    try {
      // Filtered on our token only, not on "pending": if an earlier send was applied but its
      // reply was lost, a re-send matches our own "done" record and rewrites the same outcome.
      matched = MustFinish.call("storing the outcome of idempotency key '" + key + "'",
          () -> Deadline.boundedWrite(collection).updateOne(
              and(eq("_id", key), eq("owner", token)), completion).getMatchedCount());
    } catch (MustFinish.Continuing e) {
      throw new OutcomeNotRecordedException(key, "the action ran, but storing its outcome was"
          + " not done when the caller's wait ended; it goes on in the background for up to "
          + MustFinish.BUDGET.toSeconds() + " s, and until it is done the key stays pending"
          + " (other callers wait for it)", e);
    } catch (MongoException e) {
      throw new OutcomeNotRecordedException(key, "storing it failed; the claim stays until its"
          + " lease of " + lease.toMillis() + "ms runs out, then the action may run again", e);
    }
    if (matched == 1) {
      return;
    }
    Duration took = Duration.ofNanos(ticker.nanoTime() - started);
    throw new OutcomeNotRecordedException(key, "the action took " + took.toMillis()
        + "ms, its lease of " + lease.toMillis() + "ms ran out and another caller took the"
        + " key over, so the action may have run twice; make the lease longer", null);
  }

  /**
   * Deletes our claim if it is still pending: after the action failed, so a retry can run it at
   * once, or when a claim is given up (it may have been applied after all). Under its own budget
   * ({@link MustFinish}): an action that failed after the caller's deadline would otherwise
   * block its key until the lease runs out; and with the interrupt set aside, since an action
   * that was cancelled often fails with the flag set. A failure to
   * delete is attached to {@code cause}: the claim then expires with its lease, and what the
   * caller needs is its own failure.
   */
  void release(String key, String token, Throwable cause) {
    try {
      MustFinish.run("releasing the claim on idempotency key '" + key + "'",
          () -> Deadline.boundedWrite(collection).deleteOne(
              and(eq("_id", key), eq("owner", token), eq("state", PENDING))));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }
}
