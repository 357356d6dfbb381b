package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Filters.type;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.max;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOptions;
import io.writeguard.Sleeper;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Backoff;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.LockArguments;
import io.writeguard.internal.MustFinish;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MongoDB store of the lease-lock engine: every MongoDB command of the lease lock, in one
 * place. Stateless apart from the collection; thread-safe. Not API.
 *
 * <p>One document per key, kept after release so its token never goes back:
 *
 * <pre>
 * { _id: "orders:42",          // the lock key
 *   owner: "9f3c…" | null,      // service instance holding it; null when released
 *   attempt: "3kq9…x.1k",       // the holder's take attempt: engine prefix + count, unique
 *   token: 160,                 // top of the holder's token block; only ever rises
 *   leaseMs: 30000,             // the holder's lease
 *   acquiredAt: ISODate(…),     // server clock ($currentDate) when taken
 *   renewedAt: ISODate(…),      // server clock at the last take or renewal
 *   releasedAt: ISODate(…),     // server clock at the last release
 *   contendedAt: ISODate(…),    // server clock when another owner last found it busy
 *   fresh: true }               // only between an insert and its token-floor check
 * </pre>
 *
 * plus one collection-wide {@code {_id: {floor: "tokens"}, floor: N}} written by the cleaner:
 * every token it deleted is at most {@code N}, and a re-created key starts above it.
 *
 * <p>Expiry is judged only by the server's clock: {@code renewedAt + leaseMs < $$NOW}.
 */
final class MongoLockStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(MongoLockStore.class);
  static final String OWNER = "owner";
  static final String ATTEMPT = "attempt";
  static final String TOKEN = "token";
  static final String LEASE_MS = "leaseMs";
  static final String ACQUIRED_AT = "acquiredAt";
  static final String RENEWED_AT = "renewedAt";
  static final String RELEASED_AT = "releasedAt";
  static final String CONTENDED_AT = "contendedAt";
  static final String FRESH = "fresh";
  static final String FLOOR = "floor";
  /** Not a string, so it can never collide with a lock key. */
  static final Document FLOOR_ID = new Document(FLOOR, "tokens");

  private static final FindOneAndUpdateOptions UPSERT_AFTER =
      new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER);
  private static final FindOneAndUpdateOptions AFTER =
      new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);

  private final MongoCollection<Document> locks;
  private final MongoLockCommands commands;
  private final FindOneAndUpdateOptions releaseOptions;
  private final long leaseMs;
  private final Backoff backoff;
  private final Sleeper sleeper;

  MongoLockStore(MongoCollection<?> collection, long leaseMs, Backoff backoff, Sleeper sleeper) {
    this.leaseMs = leaseMs;
    this.backoff = backoff;
    this.sleeper = sleeper;
    // Lock writes must survive a failover, or a new primary could hand the lock out again.
    this.locks = collection.withDocumentClass(Document.class)
        .withWriteConcern(WriteConcern.MAJORITY)
        .withReadConcern(ReadConcern.MAJORITY)
        .withReadPreference(ReadPreference.primary());
    this.commands = new MongoLockCommands(locks.getCodecRegistry());
    this.releaseOptions = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE)
        .projection(commands.releaseProjection());
  }

  String namespace() {
    return locks.getNamespace().getFullName();
  }

  @Override
  public String describe() {
    return namespace();
  }

  /**
   * One atomic attempt: take {@code key} if it is free, expired, missing, or already ours under
   * this attempt (a resent take), and raise its token by {@code block}. Busy when another owner
   * holds a live lease: the conditional upsert then tries to insert a second document with the
   * same {@code _id} and the unique index refuses it (duplicate key), which is the "busy"
   * signal, not an error. A fresh document is lifted above the cleaner's token floor.
   */
  @Override
  public Take take(String key, String owner, String attempt, int block, boolean queued) {
    Bson filter = commands.takeFilter(key, owner, attempt);
    Bson update = commands.takeUpdate(owner, attempt, leaseMs, block);
    try {
      Document doc = Deadline.boundedWrite(locks).findOneAndUpdate(filter, update, UPSERT_AFTER);
      long top = tokenOf(doc);
      if (Boolean.TRUE.equals(doc.getBoolean(FRESH))) {
        Long lifted = liftAboveFloor(key, owner, attempt, block);
        if (lifted == null) {
          return Take.busy(Long.MAX_VALUE); // taken over in between: busy after all
        }
        top = lifted;
      }
      return new Take(new Grant(top - block + 1, top), 0);
    } catch (MongoInterruptedException e) {
      InterruptedException cause = new InterruptedException(e.getMessage());
      cause.initCause(e);
      throw new WriteGuardInterruptedException("taking mongo lock '" + LockArguments.shorten(key) + "'", cause);
    } catch (MongoException e) {
      if (!isDuplicateKey(e)) {
        throw e;
      }
    }
    if (queued) {
      markContended(key, owner);
    }
    return Take.busy(Long.MAX_VALUE);
  }

  /**
   * Tells the holder that another owner is waiting, so it yields after its current batch. Best
   * effort: the key is busy whatever becomes of the mark, so a failed mark must not turn "busy"
   * into a backend failure (the caller keeps waiting; its next take finds out if MongoDB is gone).
   */
  private void markContended(String key, String owner) {
    try {
      Deadline.boundedWrite(locks).updateOne(and(eq("_id", key), ne(OWNER, owner)), currentDate(CONTENDED_AT));
    } catch (MongoInterruptedException e) {
      InterruptedException cause = new InterruptedException(e.getMessage());
      cause.initCause(e);
      throw new WriteGuardInterruptedException("marking mongo lock '" + LockArguments.shorten(key) + "' contended", cause);
    } catch (MongoException e) {
      log.debug("mongo lock '{}': marking it contended failed; still busy", LockArguments.shorten(key), e);
    }
  }

  /**
   * For a freshly inserted lock document: lifts its token above the cleaner's floor (a key
   * whose document was deleted must not restart below the tokens it issued before) and clears
   * the {@code fresh} mark. Returns the new top token, or null if the lease was lost meanwhile.
   */
  private Long liftAboveFloor(String key, String owner, String attempt, int block) {
    Document floorDoc = Deadline.bounded(locks).find(eq("_id", FLOOR_ID)).first();
    long floor = floorDoc == null ? 0 : ((Number) floorDoc.get(FLOOR)).longValue();
    Document doc = Deadline.boundedWrite(locks).findOneAndUpdate(commands.ours(key, owner, attempt),
        combine(unset(FRESH), max(TOKEN, floor + block)), AFTER);
    return doc == null ? null : tokenOf(doc);
  }

  /** Extends the lease from now (server clock). False if the document is no longer ours. */
  @Override
  public boolean renew(String key, String owner, String attempt, Grant grant) {
    return Deadline.boundedWrite(locks).updateOne(commands.ours(key, owner, attempt), commands.renewal())
        .getMatchedCount() == 1;
  }

  /**
   * Frees the lock if it is still ours (owner and attempt both match, so a holder whose lease
   * expired can never free a newer holder's lock). Returns one maximum backoff if another owner
   * found it busy while we held it, so this process lets that one have its turn.
   */
  @Override
  public long release(String key, String owner, String attempt, Grant grant) {
    // Records that the holder is done: under its own budget, not the caller's (MustFinish).
    Document before = MustFinish.call("releasing lock '" + LockArguments.shorten(key) + "'",
        () -> Deadline.boundedWrite(locks).findOneAndUpdate(commands.ours(key, owner, attempt),
            commands.release(), releaseOptions));
    if (before == null) {
      return 0;
    }
    Date acquired = before.getDate(ACQUIRED_AT);
    Date contended = before.getDate(CONTENDED_AT);
    boolean askedFor = contended != null && (acquired == null || !contended.before(acquired));
    return askedFor ? backoff.maxNanos() : 0;
  }

  @Override
  public void abandon(String key, String owner, String attempt) {
    MustFinish.run("abandoning the take of lock '" + LockArguments.shorten(key) + "'",
        () -> Deadline.boundedWrite(locks).updateOne(commands.ours(key, owner, attempt),
            commands.release()));
  }

  /** A busy head polls: bounded exponential backoff, jittered, capped by the remaining wait. */
  @Override
  public BusyWait busyWait(String key) {
    return (attempt, retryHintNanos, maxNanos) -> {
      long nanos = Math.min(backoff.equalJitterNanos(attempt, ThreadLocalRandom.current()), maxNanos);
      if (nanos > 0) {
        sleeper.sleep(Duration.ofNanos(nanos));
      }
    };
  }

  /**
   * Deletes up to {@code limit} lock documents whose lease ended more than {@code staleAfterMs}
   * ago (server clock). First raises the token floor to the highest token among them, then
   * deletes each one only if its token is unchanged and it is still stale, so a key taken in
   * between is never deleted and a re-created key restarts above every deleted token.
   */
  long deleteStale(long staleAfterMs, int limit) {
    Bson stale = and(type("_id", BsonType.STRING), MongoLockCommands.expiredFor(staleAfterMs));
    List<Document> found = Deadline.bounded(locks).find(stale).projection(Projections.include(TOKEN)).limit(limit)
        .into(new ArrayList<>());
    if (found.isEmpty()) {
      return 0;
    }
    long highest = 0;
    List<Bson> exact = new ArrayList<>(found.size());
    for (Document doc : found) {
      long token = tokenOf(doc);
      highest = Math.max(highest, token);
      exact.add(and(eq("_id", doc.get("_id")), eq(TOKEN, doc.get(TOKEN))));
    }
    Deadline.boundedWrite(locks).updateOne(eq("_id", FLOOR_ID), max(FLOOR, highest), new UpdateOptions().upsert(true));
    return Deadline.boundedWrite(locks).deleteMany(and(or(exact), stale)).getDeletedCount();
  }

  /** The stored lock document, for tests and diagnostics. */
  Document find(String key) {
    return Deadline.bounded(locks).find(eq("_id", key)).first();
  }

  static boolean isDuplicateKey(MongoException e) {
    ErrorCategory category = e instanceof MongoWriteException write
        ? write.getError().getCategory()
        : ErrorCategory.fromErrorCode(e.getCode());
    return category == ErrorCategory.DUPLICATE_KEY;
  }

  private static long tokenOf(Document doc) {
    Object token = doc.get(TOKEN);
    return token instanceof Number n ? n.longValue() : 0L;
  }
}
