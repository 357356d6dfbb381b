package io.writeguard.update;

import io.writeguard.internal.Deadline;
import io.writeguard.update.BatchCallers.Caller;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt64;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.conversions.Bson;

/**
 * One round of a group-commit batch: one read, the pending callers' mutators in arrival order,
 * one write. Built for one round by {@link BatchUpdate}; confined to the leader's thread.
 *
 * <p>Why it is built this way. The mutators are called in arrival order, each on the state the
 * earlier ones produced (a private copy, with the version an equivalent one-at-a-time run would
 * show), so the result is what running them one after another would give. The round then
 * writes once, filtered on the version read:
 *
 * <ul>
 *   <li>one writer: its mutation as it is, exactly as a lone update (the server computes it);
 *   <li>several: the callers' changes merged into one operator update ({@link MergedWrite})
 *       plus {@code $inc} of the version by the number of writers, filtered on the version
 *       read (and on the few guards the merge needs). Its effect on the stored document is
 *       that of the callers' updates sent one after another, whatever a writer that does not
 *       raise the version changed meanwhile; only a round whose first writer replaced the
 *       document sends a replacement (of the final document, computed on that known
 *       replacement).
 * </ul>
 *
 * A writer whose operators {@link InMemoryUpdate} does not model, or whose changes do not merge
 * with the round's ({@link MergedWrite#add}), ends the round: if it is the first writer its
 * mutation is sent alone, otherwise it waits for the next round. A caller that
 * decides before any writer of its round (nothing to write, or its mutator threw) is answered at
 * once, as it would be alone; one that decides after a writer is answered only once that
 * write is acknowledged, since it decided on the writer's changes. A read or write that fails,
 * or a write that matches nothing, is answered by {@link RoundFailures}; so is a merged writer
 * whose skipped state an index created since the indexes were read may have refused.
 */
final class Round {
  private static final BsonDocumentCodec BSON_DOCUMENTS = new BsonDocumentCodec();
  private final BatchUpdate batch;
  private final BatchCallers callers;
  private final RoundFailures failures;
  private final Object id;
  // The round as the mutators build it, for its write.
  /** Answered by the write: its writers, and the callers that decided after one of them. */
  private final List<Caller> joined = new ArrayList<>();
  private OptionalLong expected;
  private RoundDocuments documents;
  private BsonDocument working;
  private MergedWrite merged;
  private int writers;
  private Mutation single;
  private BsonDocument singleUpdate;

  Round(BatchUpdate batch, BatchCallers callers) {
    this.batch = batch;
    this.callers = callers;
    this.failures = new RoundFailures(batch, callers);
    this.id = callers.id;
  }

  /**
   * Runs the round. Answers whom it can, removes them from the pending callers, and returns
   * the callers to retry after a backoff (empty: go on at once, if any remain).
   */
  List<Caller> run() {
    Deque<Caller> pending = callers.pending;
    RawBsonDocument current;
    try {
      batch.setInterruptAside();
      current = batch.store.read(id);
    } catch (RuntimeException e) {
      List<Caller> all = new ArrayList<>(pending);
      all.forEach(callers::startAttempt);
      return failures.failedRead(all, e);
    }
    if (current == null) {
      for (Caller c : new ArrayList<>(pending)) {
        callers.startAttempt(c);
        callers.fail(c, new DocumentNotFoundException(
            batch.store.collectionName(), id, c.attempt, c.elapsed(), false));
      }
      return List.of();
    }
    try {
      expected = batch.versions.expectedVersion(id, current);
    } catch (RuntimeException e) {
      for (Caller c : new ArrayList<>(pending)) {
        callers.startAttempt(c);
        callers.fail(c, e);
      }
      return List.of();
    }
    long base = expected.orElse(0);
    // Not combined: a legacy document (its first write creates the version next to the
    // writer's own new fields, in an order that depends on the server's version), or a
    // version so high that one per writer would overflow.
    boolean combinable = expected.isPresent() && base <= Long.MAX_VALUE - pending.size();
    // Each step's state is kept as it is for its caller: no step changes an earlier one's
    // (InMemoryUpdate copies the paths it writes, a replacement is a new document, the version
    // is put on the new state before it is kept), so the states need no copies of their own.
    working = mutable(current);
    BsonDocument read = working; // never changed: each step copies what it writes
    documents = new RoundDocuments(batch.documentCodec);
    for (Caller c : new ArrayList<>(pending)) {
      if (c.alone && !joined.isEmpty()) {
        break;
      }
      Mutation mutation;
      BsonDocument update = null;
      Throwable thrown = null;
      try {
        mutation = c.mutator.mutate(documents.copyOf(working));
        if (mutation == null) {
          throw new IllegalArgumentException("mutator returned null for _id=" + id
              + "; return Mutation.none() to write nothing");
        }
        if (mutation instanceof Mutation.Update u) {
          update = batch.loop.checkedUpdate(u.update());
        } else if (mutation instanceof Mutation.Replace r) {
          // the version the caller was shown: as read, or as the earlier writers left it
          batch.loop.checkReplacement(r.replacement(), working.get("_id"),
              writers == 0 ? expected : OptionalLong.of(base + writers));
        }
      } catch (Throwable e) { // an Error or a checked exception too fails only its own caller
        mutation = null;
        thrown = e;
      }
      if (thrown != null || mutation instanceof Mutation.None) {
        callers.startAttempt(c);
        if (writers == 0) { // decided on the document as read: answered as it would be alone
          if (thrown != null) {
            callers.fail(c, thrown);
          } else {
            Document after = c.returnAfter ? documents.copyOf(working) : null;
            callers.succeed(c,
                new UpdateOutcome(id, after, base, c.attempt, c.elapsed(), false));
          }
        } else {
          c.writer = false;
          c.thrown = thrown;
          c.state = c.returnAfter && thrown == null ? working : null; // never changed after
          c.version = base + writers;
          joined.add(c);
        }
        continue;
      }
      List<InMemoryUpdate.Op> ops = c.alone || !combinable ? null : parsed(mutation, update);
      BsonDocument next = ops == null ? null : applied(working, mutation, ops);
      if (next != null) {
        boolean replaces = mutation instanceof Mutation.Replace;
        if (merged == null) {
          merged = (replaces ? MergedWrite.ofReplacement(batch.store::constraints)
              : MergedWrite.ofOperators(read, batch.store::constraints))
              .everyWriterChanges(batch.versions.field());
        }
        if (!(replaces ? merged.addReplacement(next) : merged.add(ops, next))) {
          next = null; // its changes do not merge with this round's: sent in the next one
        }
      }
      if (next == null && writers > 0) {
        break; // not combinable: first writer of the next round
      }
      callers.startAttempt(c);
      writers++;
      c.writer = true;
      c.thrown = null;
      c.version = base + writers;
      joined.add(c);
      if (writers == 1) {
        single = mutation;
        singleUpdate = update;
      }
      if (next == null) {
        break; // sent alone, as it is
      }
      next.put(batch.versions.field(), new BsonInt64(c.version));
      working = next;
      c.state = c.returnAfter ? working : null;
    }
    if (writers == 0) {
      return List.of();
    }
    return write();
  }

  private List<Caller> write() {
    long base = expected.orElse(0);
    Bson filter = expected.isPresent()
        ? batch.versions.filter(id, base)
        : batch.versions.missingFilter(id);
    Caller first = joined.stream().filter(c -> c.writer).findFirst().orElseThrow();
    Store.WriteResult result;
    try {
      // Bounded by the deadlines of the callers it answers: one answered before it (it decided
      // on the document as read) lends it none of its own.
      result = Deadline.replacing(BatchCallers.earliestDeadline(joined),
          () -> send(filter, first, base));
    } catch (RuntimeException e) {
      return failures.writeFailed(joined, writers, base, e);
    }
    if (!result.matched()) {
      return failures.missed(joined);
    }
    List<Caller> unsure = writers > 1 ? failures.unsureAfterMerge(joined, merged) : List.of();
    for (Caller c : joined) {
      if (c.thrown != null) {
        callers.fail(c, c.thrown);
        continue;
      }
      if (!unsure.isEmpty() && unsure.contains(c)) {
        callers.fail(c, failures.unsure(c, base));
        continue;
      }
      Document after;
      long version = c.version;
      if (writers == 1 && c.writer) {
        after = result.after(); // its version is c.version: the filter matched the one read
      } else {
        after = c.state == null ? null : documents.copyOf(c.state);
      }
      callers.succeed(c,
          new UpdateOutcome(id, after, version, c.attempt, c.elapsed(), c.writer));
    }
    return List.of();
  }

  /** The version the round read (empty: not read, or a legacy document). */
  OptionalLong readVersion() {
    return expected == null ? OptionalLong.empty() : expected;
  }

  private Store.WriteResult send(Bson filter, Caller first, long base) {
    batch.setInterruptAside();
    if (writers > 1 && merged.replacing()) {
      return batch.store.replace(filter, asDocument(working), false);
    } else if (writers > 1) {
      return batch.store.update(filter, merged.guard(),
          merged.update(batch.versions.field(), writers, working));
    } else if (single instanceof Mutation.Update) {
      return batch.store.update(filter, batch.loop.withIncrement(singleUpdate),
          first.returnAfter);
    }
    Document replacement = new Document(((Mutation.Replace) single).replacement());
    replacement.put(batch.versions.field(), base + 1);
    return batch.store.replace(filter, replacement, first.returnAfter);
  }

  /**
   * The operators of an update as the in-memory model reads them (none for a replacement), or
   * null when the model does not cover them.
   */
  private static List<InMemoryUpdate.Op> parsed(Mutation mutation, BsonDocument update) {
    if (!(mutation instanceof Mutation.Update)) {
      return List.of();
    }
    try {
      return InMemoryUpdate.parse(update);
    } catch (InMemoryUpdate.NotModelled e) {
      return null;
    }
  }

  /** The document after {@code mutation}, or null when it is not modelled in memory. */
  private BsonDocument applied(BsonDocument working, Mutation mutation,
      List<InMemoryUpdate.Op> ops) {
    if (mutation instanceof Mutation.Update) {
      try {
        return InMemoryUpdate.apply(working, ops);
      } catch (InMemoryUpdate.NotModelled e) {
        return null;
      }
    }
    Document given = ((Mutation.Replace) mutation).replacement();
    BsonDocument replacement = given.toBsonDocument(BsonDocument.class,
        batch.store.codecRegistry());
    // _id first: MongoDB's update stage moves it there in every document it updates, so a
    // lone replacement that puts it elsewhere is stored with it first too.
    BsonDocument next = new BsonDocument("_id", working.get("_id"));
    for (var field : replacement.entrySet()) {
      if (!field.getKey().equals("_id")) {
        next.put(field.getKey(), field.getValue());
      }
    }
    return next;
  }

  private static BsonDocument mutable(RawBsonDocument raw) {
    return BSON_DOCUMENTS.decode(new BsonDocumentReader(raw), RoundDocuments.DECODING);
  }

  private Document asDocument(BsonDocument doc) {
    if (batch.encodesBsonValues) {
      return new Document(doc);
    }
    return batch.documentCodec.decode(new BsonDocumentReader(doc), RoundDocuments.DECODING);
  }
}
