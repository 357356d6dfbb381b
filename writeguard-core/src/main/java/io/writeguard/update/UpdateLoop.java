package io.writeguard.update;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.UsualIds;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionGuard;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.conversions.Bson;

/**
 * The read-mutate-compare-and-set loop behind {@link VersionedUpdater}. Package-private.
 *
 * <p>One attempt:
 *
 * <ol>
 *   <li>Read the whole document (fresh every attempt; never a snapshot from an earlier one).
 *       None: not found. Take its version ({@link VersionPolicy#expectedVersion}).
 *   <li>Give the mutator its own decoded copy; it returns a {@link Mutation}.
 *   <li>Write with a filter on {@code _id} and the version read ({@code {$exists: false}} to
 *       adopt a legacy document), incrementing the version in the same write.
 *   <li>Matched: done. Missed: read only {@code _id} and version to tell a conflict (the
 *       document is there, its version moved: retry) from a deletion (not found).
 * </ol>
 *
 * <p>Between attempts: stop if the attempts or the deadline are used up, otherwise sleep a
 * backoff: the {@link RetryPacing}'s after a conflict (the policy's full jitter unless the
 * updater paces by contention, which also leaves rounds lost to another writer's write
 * uncharged), the policy's full jitter after a transient error. Errors are sorted by {@link MongoErrors}. Immutable and thread-safe:
 * all per-call state lives in a {@link Call}.
 */
final class UpdateLoop {
  private final Store store;
  private final VersionPolicy versions;
  private final VersionGuard guard;
  private final RetryPolicy retry;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Codec<Document> documentCodec;
  private final UsualIds usualIds;
  private final RetryPacing pacing;

  UpdateLoop(Store store, VersionPolicy versions, RetryPolicy retry, WriteGuardListener listener,
      String strategy, Ticker ticker, Sleeper sleeper, RandomGenerator random) {
    this.store = store;
    this.versions = versions;
    this.guard = VersionGuard.of(versions);
    this.retry = retry;
    this.listener = WriteGuardListener.safe(listener);
    this.scope = new OperationScope(store.collectionName(), strategy);
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.random = random;
    this.documentCodec = store.codecRegistry().get(Document.class);
    this.usualIds = UsualIds.of(store.codecRegistry());
    this.pacing = RetryPacing.blind(retry);
  }

  /** The same loop on another store (a lock holder's, for one batch); shares everything else. */
  UpdateLoop on(Store other) {
    return new UpdateLoop(this, other, pacing);
  }

  /** The same loop paced by {@code other} (blind by default: the policy's backoff alone). */
  UpdateLoop pacedBy(RetryPacing other) {
    return new UpdateLoop(this, store, Objects.requireNonNull(other, "pacing"));
  }

  /** When its rounds read again; the batches run with this loop follow it too. */
  RetryPacing pacing() {
    return pacing;
  }

  private UpdateLoop(UpdateLoop from, Store store, RetryPacing pacing) {
    this.store = store;
    this.versions = from.versions;
    this.guard = from.guard;
    this.retry = from.retry;
    this.listener = from.listener;
    this.scope = from.scope;
    this.ticker = from.ticker;
    this.sleeper = from.sleeper;
    this.random = from.random;
    this.documentCodec = from.documentCodec;
    this.usualIds = from.usualIds;
    this.pacing = pacing;
  }

  OperationScope scope() {
    return scope;
  }

  /** The state of one call; confined to the calling thread. */
  private final class Call {
    final Object id;
    final long startNanos;
    int attempt;
    OptionalLong lastSeenVersion = OptionalLong.empty();
    RuntimeException lastTransient;
    long roundNanos; // the last attempt's, from its read to its write's answer
    int uncharged; // attempts lost to another writer's progress (RetryPacing#chargesConflict)

    Call(Object id, long startNanos) {
      this.id = id;
      this.startNanos = startNanos;
    }

    Duration elapsed() {
      return Duration.ofNanos(ticker.nanoTime() - startNanos);
    }
  }

  UpdateOutcome run(Object id, Mutator mutator, boolean returnAfter) {
    return run(id, mutator, returnAfter, ticker.nanoTime(), 0);
  }

  /**
   * Like {@link #run(Object, Mutator, boolean)} for a call that started at {@code startNanos}
   * and made {@code attemptsMade} attempts already (in a group-commit batch that handed it
   * back): they count.
   */
  UpdateOutcome run(Object id, Mutator mutator, boolean returnAfter, long startNanos,
      int attemptsMade) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(mutator, "mutator");
    // Every round trip of the call gets the time left before its deadline (see Deadline).
    Deadline outer = Deadline.enter(deadlineOf(startNanos));
    try {
      return runWithin(id, mutator, returnAfter, startNanos, attemptsMade);
    } finally {
      Deadline.restore(outer);
    }
  }

  /** The deadline, on the driver's clock, of a call that started at {@code startNanos}. */
  Deadline deadlineOf(long startNanos) {
    return Deadline.afterNanos(startNanos + retry.deadline().toNanos() - ticker.nanoTime());
  }

  private UpdateOutcome runWithin(Object id, Mutator mutator, boolean returnAfter,
      long startNanos, int attemptsMade) {
    Call call = new Call(id, startNanos);
    call.attempt = attemptsMade;
    try {
      while (true) {
        call.attempt++;
        listener.onAttempt(scope, id, call.attempt);
        UpdateOutcome outcome = attempt(call, mutator, returnAfter);
        if (outcome != null) {
          listener.onSuccess(scope, id, call.attempt, outcome.elapsed());
          return outcome;
        }
        backOffOrGiveUp(call);
      }
    } catch (RetriesExhaustedException e) {
      listener.onExhausted(scope, id, e.attempts(), e.elapsed());
      throw e;
    } catch (Throwable e) { // a mutator's undeclared checked exception too: rethrown unchanged
      listener.onFailure(scope, id, e);
      throw e;
    }
  }

  /** One attempt: the outcome, or null when it should be retried (conflict or transient). */
  private UpdateOutcome attempt(Call call, Mutator mutator, boolean returnAfter) {
    RawBsonDocument current;
    long readAt = ticker.nanoTime();
    try {
      current = store.read(call.id);
    } catch (RuntimeException e) {
      return failedRead(call, e);
    }
    if (current == null) {
      throw new DocumentNotFoundException(
          store.collectionName(), call.id, call.attempt, call.elapsed(), false);
    }
    OptionalLong expected = versions.expectedVersion(call.id, current);
    if (expected.isPresent()) {
      call.lastSeenVersion = expected;
    }
    Mutation mutation = mutator.mutate(decode(current));
    if (mutation == null) {
      throw new IllegalArgumentException(
          "mutator returned null for _id=" + call.id + "; return Mutation.none() to write nothing");
    }
    if (mutation instanceof Mutation.None) {
      return new UpdateOutcome(call.id, returnAfter ? decode(current) : null,
          expected.orElse(0), call.attempt, call.elapsed(), false);
    }
    Bson filter = expected.isPresent()
        ? versions.filter(call.id, expected.getAsLong())
        : versions.missingFilter(call.id);
    // $inc by 1 on a missing field creates it as 1, so adoption writes version 1.
    long next = expected.orElse(0) + 1;
    BsonDocument update = null;
    Document replacement = null;
    if (mutation instanceof Mutation.Update) {
      update = withIncrement(((Mutation.Update) mutation).update());
    } else {
      replacement =
          versionedReplacement(((Mutation.Replace) mutation).replacement(), current, expected, next);
    }
    Store.WriteResult result;
    try {
      result = update != null ? store.update(filter, update, returnAfter)
          : store.replace(filter, replacement, returnAfter);
    } catch (RuntimeException e) {
      result = failedWrite(call, expected, e);
    }
    if (result == null) {
      return null; // transient, nothing written
    }
    call.roundNanos = ticker.nanoTime() - readAt;
    if (result.matched()) {
      Document after = result.after();
      // The filter matched the version read, so the one written is next; not re-checked, so
      // that a write that reached Long.MAX_VALUE is reported as the success it was.
      return new UpdateOutcome(call.id, after, next, call.attempt, call.elapsed(), true);
    }
    return missed(call, expected);
  }

  /** A write that threw: the typed error, or null when it was transient and is retried. */
  private Store.WriteResult failedWrite(Call call, OptionalLong expected, RuntimeException e) {
    String coll = store.collectionName();
    switch (MongoErrors.classifyWrite(e)) {
      case DUPLICATE_KEY:
        throw new DuplicateKeyWriteException(coll, call.id, call.attempt, call.elapsed(), e);
      case DOCUMENT_VALIDATION:
        throw new DocumentValidationException(coll, call.id, call.attempt, call.elapsed(), e);
      case OUTCOME_UNKNOWN:
        throw new WriteOutcomeUnknownException(
            coll, call.id, call.attempt, call.elapsed(), expected.orElse(0), e);
      case NOT_APPLIED_TRANSIENT:
        transientFailure(call, e);
        return null;
      default:
        throw permanent(call, "failed with an error that is not retried", e);
    }
  }

  /** The write matched nothing: one cheap read says whether it was a conflict or a delete. */
  private UpdateOutcome missed(Call call, OptionalLong read) {
    RawBsonDocument probe;
    try {
      probe = store.probe(call.id, versions.field());
    } catch (RuntimeException e) {
      return failedRead(call, e);
    }
    if (probe == null) {
      throw new DocumentNotFoundException(
          store.collectionName(), call.id, call.attempt, call.elapsed(), true);
    }
    OptionalLong seen = versions.versionOf(call.id, probe);
    if (seen.isPresent()) {
      call.lastSeenVersion = seen;
    }
    call.lastTransient = null;
    if (!pacing.chargesConflict(read, seen)) {
      call.uncharged++;
    }
    listener.onConflict(scope, call.id, call.attempt);
    return null;
  }

  private UpdateOutcome failedRead(Call call, RuntimeException e) {
    if (!MongoErrors.isTransientRead(e)) {
      throw permanent(call, "could not read the document; nothing was written", e);
    }
    transientFailure(call, e);
    return null;
  }

  private void transientFailure(Call call, RuntimeException e) {
    if (!retry.retryTransientErrors()) {
      throw new UpdateFailedException(store.collectionName(), call.id, call.attempt,
          call.elapsed(), "hit a transient error (not retried: retryTransientErrors is off);"
              + " nothing was written", e);
    }
    call.lastTransient = e;
  }

  private RuntimeException permanent(Call call, String what, RuntimeException e) {
    if (!(e instanceof com.mongodb.MongoException)) {
      return e; // not the server's: a bug or bad input, passed on as it is
    }
    return new UpdateFailedException(
        store.collectionName(), call.id, call.attempt, call.elapsed(), what, e);
  }

  private void backOffOrGiveUp(Call call) {
    if (call.attempt - call.uncharged >= retry.maxAttempts()) {
      throw exhausted(call, RetriesExhaustedException.Budget.ATTEMPTS);
    }
    RandomGenerator jitter = random != null ? random : ThreadLocalRandom.current();
    // A conflict is paced (RetryPacing); a transient error backs off by the policy alone.
    Duration backoff = call.lastTransient == null
        ? pacing.afterConflict(call.roundNanos, call.attempt, jitter)
        : retry.backoff(call.attempt, jitter);
    long deadline = call.startNanos + retry.deadline().toNanos();
    // Start a retry only if it can start before the deadline (the policy's, or the caller's
    // if earlier); sleeping past it is wasted.
    // A paced conflict also keeps room for its next round (RetryPacing#reserveNanos).
    Duration room = call.lastTransient == null
        ? backoff.plusNanos(pacing.reserveNanos(call.roundNanos)) : backoff;
    if (ticker.nanoTime() + room.toNanos() - deadline >= 0 || Deadline.passesWithin(room)) {
      throw exhausted(call, RetriesExhaustedException.Budget.DEADLINE);
    }
    listener.onRetry(scope, call.id, call.attempt, backoff);
    try {
      sleeper.sleep(backoff);
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("backing off " + backoff.toMillis()
          + "ms before attempt " + (call.attempt + 1) + " of the update of "
          + store.collectionName() + " _id=" + call.id + "; nothing was written", e);
    }
  }

  private RetriesExhaustedException exhausted(Call call, RetriesExhaustedException.Budget budget) {
    return new RetriesExhaustedException(store.collectionName(), call.id, call.attempt,
        call.elapsed(), budget, call.lastSeenVersion, call.lastTransient);
  }

  /** The user's operators plus {@code $inc: {version: 1}}; the user's Bson is not changed. */
  private BsonDocument withIncrement(Bson userUpdate) {
    return withIncrement(checkedUpdate(userUpdate));
  }

  /** The user's update as BSON, checked: operators only, none touching the version. */
  BsonDocument checkedUpdate(Bson userUpdate) {
    BsonDocument user = userUpdate.toBsonDocument(BsonDocument.class, store.codecRegistry());
    if (user.isEmpty()) {
      throw new IllegalArgumentException(
          "Mutation.update needs at least one operator; return Mutation.none() to write nothing");
    }
    for (String key : user.keySet()) {
      if (!key.startsWith("$")) {
        throw new IllegalArgumentException("Mutation.update needs update operators such as"
            + " $set, got the plain field '" + key + "'; use Mutation.replace for a whole"
            + " document");
      }
    }
    guard.checkUpdate(user, store.codecRegistry());
    return user;
  }

  /** A checked user update plus {@code $inc: {version: 1}}; {@code user} is not changed. */
  BsonDocument withIncrement(BsonDocument user) {
    BsonDocument merged = sized(user.size() + 1);
    merged.putAll(user);
    BsonDocument inc;
    if (user.containsKey("$inc")) {
      BsonDocument given = user.getDocument("$inc");
      inc = sized(given.size() + 1);
      inc.putAll(given);
    } else {
      inc = sized(1);
    }
    inc.put(versions.field(), ONE);
    merged.put("$inc", inc);
    return merged;
  }

  private static final BsonInt64 ONE = new BsonInt64(1); // immutable, so shared

  /** An empty document whose map holds {@code entries} without growing (not the default 16). */
  private static BsonDocument sized(int entries) {
    return new BsonDocument(entries * 4 / 3 + 1);
  }

  /**
   * A copy of the mutator's replacement carrying version {@code next}. Its own version, if any,
   * must be the one read (it is the copy the mutator was given); its {@code _id}, if any, the
   * document's.
   */
  private Document versionedReplacement(
      Document given, RawBsonDocument current, OptionalLong expected, long next) {
    // The stored _id is read (a scan of the raw bytes) only for a replacement that has one.
    checkReplacement(given, given.containsKey("_id") ? current.get("_id") : null, expected);
    Document copy = new Document(given);
    copy.put(versions.field(), next);
    return copy;
  }

  /**
   * Checks a mutator's replacement: no operator keys; its version, if any, the one the mutator
   * was shown ({@code seen}; empty for a legacy document); its {@code _id}, if any, {@code id}
   * (which is not looked at when it has none).
   */
  void checkReplacement(Document given, BsonValue id, OptionalLong seen) {
    OptionalLong expected = seen;
    String field = versions.field();
    for (String key : given.keySet()) {
      if (key.startsWith("$")) {
        throw new IllegalArgumentException("replacement has the operator key '" + key
            + "'; use Mutation.update for update operators");
      }
    }
    if (given.containsKey(field)) {
      Object carried = given.get(field);
      boolean asRead = (carried instanceof Long || carried instanceof Integer)
          && expected.isPresent() && ((Number) carried).longValue() == expected.getAsLong();
      if (!asRead) {
        throw new VersionFieldException("replacement", field, "it carries " + carried
            + " but the document was read at version "
            + (expected.isPresent() ? Long.toString(expected.getAsLong()) : "none (legacy)")
            + "; leave the version as read (or remove it): the library writes version + 1");
      }
    }
    if (given.containsKey("_id")) {
      BsonValue givenId = usualIds.encode(given.get("_id"));
      if (!givenId.equals(id)) {
        throw new IllegalArgumentException("replacement changes _id from " + id
            + " to " + givenId + "; _id is immutable");
      }
    }
  }

  private Document decode(RawBsonDocument raw) {
    return raw.decode(documentCodec);
  }
}
