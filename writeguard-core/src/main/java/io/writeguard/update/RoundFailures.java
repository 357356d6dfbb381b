package io.writeguard.update;

import io.writeguard.update.BatchCallers.Caller;
import java.util.List;
import java.util.OptionalLong;
import org.bson.RawBsonDocument;

/**
 * What a group-commit round's failed read, failed write or unmatched write means for its
 * callers. Each method answers the callers that are done and returns those to retry after a
 * backoff. Confined to the leader's thread.
 *
 * <p>Why it is built this way. A conflict or a transient error sends the round's callers to a
 * fresh read (each within its own attempts and deadline, see {@link BatchUpdate}); an unknown
 * write outcome fails the callers whose changes the write carried
 * ({@link WriteOutcomeUnknownException}) and nobody else; a combined write the server refuses
 * (validation, duplicate key) is retried with each writer alone, so the server's verdict
 * reaches only the caller it concerns, and the indexes are read again for the next rounds. A
 * merged write that passed is followed by a read of the indexes: where one created since the
 * merge read them could have refused a writer's skipped state, that writer is told its outcome
 * is unknown ({@link WriteOutcomeUnknownException}), never that it was written.
 */
final class RoundFailures {
  private final BatchUpdate batch;
  private final BatchCallers callers;
  private final Object id;

  RoundFailures(BatchUpdate batch, BatchCallers callers) {
    this.batch = batch;
    this.callers = callers;
    this.id = callers.id;
  }

  /** The round's write of {@code writers} writers, filtered on version {@code base}, threw. */
  List<Caller> writeFailed(List<Caller> round, int writers, long base, RuntimeException e) {
    String coll = batch.store.collectionName();
    MongoErrors.Kind kind = MongoErrors.classifyWrite(e);
    if (kind == MongoErrors.Kind.NOT_APPLIED_TRANSIENT) {
      return transientFailure(round, e);
    }
    if (writers > 1 && kind != MongoErrors.Kind.OUTCOME_UNKNOWN) {
      // Refused, so not applied: let the server judge each change by itself, and the next
      // rounds merge under the indexes as they are now (one may be new).
      for (Caller c : round) {
        c.alone = c.writer;
      }
      batch.store.freshConstraints();
      return List.of();
    }
    for (Caller c : round) {
      if (!c.writer) {
        continue; // wrote nothing and decided on a state that may not exist: runs again
      }
      RuntimeException failure = switch (kind) {
        case OUTCOME_UNKNOWN -> new WriteOutcomeUnknownException(
            coll, id, c.attempt, c.elapsed(), base, e);
        case DUPLICATE_KEY -> new DuplicateKeyWriteException(
            coll, id, c.attempt, c.elapsed(), e);
        case DOCUMENT_VALIDATION -> new DocumentValidationException(
            coll, id, c.attempt, c.elapsed(), e);
        default -> permanent(c, "failed with an error that is not retried", e);
      };
      callers.fail(c, failure);
    }
    return List.of();
  }

  /**
   * After a merged write that matched: the writers whose own state it skipped and an index
   * read now, created since the round's merge read them, may have refused alone
   * ({@link MergedWrite#unsureUnder}). Nobody, unless such an index exists.
   */
  List<Caller> unsureAfterMerge(List<Caller> round, MergedWrite merged) {
    // Bounded as the write was: by the deadlines of the callers it answers.
    java.util.BitSet at = merged.unsureUnder(io.writeguard.internal.Deadline.replacing(
        BatchCallers.earliestDeadline(round), batch.store::freshConstraints));
    if (at.isEmpty()) {
      return List.of();
    }
    List<Caller> unsure = new java.util.ArrayList<>();
    int writer = 0;
    for (Caller c : round) {
      if (c.writer && at.get(writer++)) {
        unsure.add(c);
      }
    }
    return unsure;
  }

  /**
   * What an unsure writer is told: its change went out in the merged write, but whether its
   * update alone would have been refused by the new index cannot be known now.
   */
  RuntimeException unsure(Caller c, long base) {
    return new WriteOutcomeUnknownException(batch.store.collectionName(), id, c.attempt,
        c.elapsed(), base, new IllegalStateException("an index created since the collection's"
            + " indexes were last read judges a state this caller's update alone would have"
            + " stored, which the round's merged write skipped: it may have refused it"));
  }

  /** The write matched nothing: a conflict (retry the round) or a deletion (all fail). */
  List<Caller> missed(List<Caller> round) {
    RawBsonDocument probe;
    try {
      batch.setInterruptAside();
      probe = batch.store.probe(id, batch.versions.field());
    } catch (RuntimeException e) {
      return failedRead(round, e);
    }
    if (probe == null) {
      for (Caller c : round) {
        callers.fail(c, new DocumentNotFoundException(
            batch.store.collectionName(), id, c.attempt, c.elapsed(), true));
      }
      return List.of();
    }
    OptionalLong seen = batch.versions.versionOf(id, probe);
    for (Caller c : round) {
      if (seen.isPresent()) {
        c.lastSeenVersion = seen;
      }
      c.lastTransient = null;
      batch.listener.onConflict(batch.scope, id, c.attempt);
    }
    return round;
  }

  /** A read for {@code readers} threw: transient ones are retried, others fail them. */
  List<Caller> failedRead(List<Caller> readers, RuntimeException e) {
    if (!MongoErrors.isTransientRead(e)) {
      for (Caller c : readers) {
        callers.fail(c,
            permanent(c, "could not read the document; nothing was written", e));
      }
      return List.of();
    }
    return transientFailure(readers, e);
  }

  private List<Caller> transientFailure(List<Caller> failed, RuntimeException e) {
    if (!batch.retry.retryTransientErrors()) {
      for (Caller c : failed) {
        callers.fail(c, new UpdateFailedException(batch.store.collectionName(), id,
            c.attempt, c.elapsed(), "hit a transient error (not retried: retryTransientErrors"
                + " is off); nothing was written", e));
      }
      return List.of();
    }
    for (Caller c : failed) {
      c.lastTransient = e;
    }
    return failed;
  }

  private RuntimeException permanent(Caller c, String what, RuntimeException e) {
    if (!(e instanceof com.mongodb.MongoException)) {
      return e;
    }
    return new UpdateFailedException(batch.store.collectionName(), id, c.attempt, c.elapsed(),
        what, e);
  }
}
