package io.writeguard.update;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.internal.Deadline;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt64;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.conversions.Bson;

/**
 * Group commit: runs a batch of callers' mutators on one document with one read and one write
 * per round. Package-private; {@link VersionedUpdater} and lock holders reach it through
 * {@link VersionedUpdater#updateBatch}.
 *
 * <p>Why it is built this way. A round reads the document once and calls the mutators in
 * arrival order, each on the state the earlier ones produced (a private copy, with the version
 * an equivalent one-at-a-time run would show), so the result is what running them one after
 * another would give. The round then writes once, filtered on the version read:
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
 * write is acknowledged, since it decided on the writer's changes.
 *
 * <p>Rounds repeat until every caller is answered: a conflict or a transient error sends the
 * round's callers to a fresh read after a full-jitter backoff (by the batch's own count of
 * retries), each within its own attempts and deadline; an unknown write outcome fails the
 * callers whose changes the write carried ({@link WriteOutcomeUnknownException}) and nobody
 * else; a combined write the server refuses (validation, duplicate key) is retried with each
 * writer alone, so the server's verdict reaches only the caller it concerns. Immutable and
 * thread-safe; each {@link #run} confines its state to the calling thread.
 */
final class BatchUpdate {
  private final UpdateLoop loop;
  private final Store store;
  private final VersionPolicy versions;
  private final RetryPolicy retry;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Codec<Document> documentCodec;
  private final boolean encodesBsonValues;
  // Set while this thread runs a batch: an update a mutator makes from inside it runs alone,
  // and an interrupt of the leader is set aside until the batch is done.
  private final ThreadLocal<Running> runningHere;

  BatchUpdate(UpdateLoop loop, Store store, VersionPolicy versions, RetryPolicy retry,
      WriteGuardListener listener, Ticker ticker, Sleeper sleeper, RandomGenerator random) {
    this.loop = loop;
    this.store = store;
    this.versions = versions;
    this.retry = retry;
    this.listener = WriteGuardListener.safe(listener);
    this.scope = loop.scope();
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.random = random;
    this.documentCodec = store.codecRegistry().get(Document.class);
    this.encodesBsonValues = canEncode(store);
    this.runningHere = new ThreadLocal<>();
  }

  /**
   * The same batches on another store (a lock holder's, for one batch), sharing the policies,
   * the listener and the nested-update guard.
   */
  BatchUpdate on(Store other) {
    return new BatchUpdate(this, other);
  }

  private BatchUpdate(BatchUpdate from, Store store) {
    this.loop = from.loop.on(store);
    this.store = store;
    this.versions = from.versions;
    this.retry = from.retry;
    this.listener = from.listener;
    this.scope = from.scope;
    this.ticker = from.ticker;
    this.sleeper = from.sleeper;
    this.random = from.random;
    this.documentCodec = from.documentCodec;
    this.encodesBsonValues = from.encodesBsonValues;
    this.runningHere = from.runningHere;
  }

  private static boolean canEncode(Store store) {
    try {
      store.codecRegistry().get(BsonDocument.class);
      return true;
    } catch (CodecConfigurationException e) {
      return false;
    }
  }

  /** Where a batch's requests come from and their answers go. */
  interface Requests {
    int size();

    Mutator mutator(int i);

    boolean returnAfter(int i);

    long submittedNanos(int i);

    /** Request {@code i}'s caller's own deadline, or null when it has none. */
    Deadline deadline(int i);

    /** Whether request {@code i} is the calling thread's own (see {@link #run}). */
    boolean isCallersOwn(int i);

    void succeed(int i, UpdateOutcome outcome);

    /** Answers with {@code error}, a {@link RuntimeException} or an {@link Error}. */
    void fail(int i, Throwable error);
  }

  /** Fails request {@code i} of {@code batch} with {@code error}, which its caller throws. */
  static void fail(KeyedCombiner.Batch<?, ?> batch, int i, Throwable error) {
    if (error instanceof Error e) {
      batch.fail(i, e);
    } else {
      batch.fail(i, (RuntimeException) error);
    }
  }

  /**
   * One caller's update as queued in an updater's own combiner, with the deadline of the
   * caller's thread when it queued it (a leader runs it on another thread).
   */
  record Call(Mutator mutator, boolean returnAfter, Deadline deadline) {
    Call(Mutator mutator, boolean returnAfter) {
      this(mutator, returnAfter, Deadline.current());
    }
  }

  /** Adapts a combiner's batch of {@link Call}s. */
  static Requests ofCalls(KeyedCombiner.Batch<Call, UpdateOutcome> batch) {
    return new Requests() {
      public int size() {
        return batch.size();
      }

      public Mutator mutator(int i) {
        return batch.request(i).mutator();
      }

      public boolean returnAfter(int i) {
        return batch.request(i).returnAfter();
      }

      public Deadline deadline(int i) {
        return batch.request(i).deadline();
      }

      public long submittedNanos(int i) {
        return batch.submittedNanos(i);
      }

      public boolean isCallersOwn(int i) {
        return batch.isCallersOwn(i);
      }

      public void succeed(int i, UpdateOutcome outcome) {
        batch.succeed(i, outcome);
      }

      public void fail(int i, Throwable error) {
        BatchUpdate.fail(batch, i, error);
      }
    };
  }

  /** Adapts a combiner's batch whose requests are mutators. */
  static Requests of(KeyedCombiner.Batch<? extends Mutator, UpdateOutcome> batch,
      boolean returnAfter) {
    // A caller's own combiner hands over mutators only: the step's thread's deadline is theirs.
    Deadline stepDeadline = Deadline.current();
    return new Requests() {
      public Deadline deadline(int i) {
        return stepDeadline;
      }

      public int size() {
        return batch.size();
      }

      public Mutator mutator(int i) {
        return batch.request(i);
      }

      public boolean returnAfter(int i) {
        return returnAfter;
      }

      public long submittedNanos(int i) {
        return batch.submittedNanos(i);
      }

      public boolean isCallersOwn(int i) {
        return batch.isCallersOwn(i);
      }

      public void succeed(int i, UpdateOutcome outcome) {
        batch.succeed(i, outcome);
      }

      public void fail(int i, Throwable error) {
        BatchUpdate.fail(batch, i, error);
      }
    };
  }

  /** One caller's state across the rounds; confined to the leader's thread. */
  private final class Caller {
    final int index;
    final Mutator mutator;
    final boolean returnAfter;
    final long startNanos;
    final Deadline deadline; // the caller's own (its policy's, or its thread's if earlier)
    final Deadline own; // its thread's, or null
    int attempt;
    OptionalLong lastSeenVersion = OptionalLong.empty();
    RuntimeException lastTransient;
    boolean alone; // its change must be written by itself (a combined write was refused)
    // this round's decision
    boolean writer;
    Throwable thrown; // what its mutator threw (a RuntimeException or an Error)
    BsonDocument state; // the document as this caller left it (with its version)
    long version;

    Caller(int index, Mutator mutator, boolean returnAfter, long startNanos, Deadline own) {
      this.index = index;
      this.mutator = mutator;
      this.returnAfter = returnAfter;
      this.startNanos = startNanos;
      this.own = own;
      this.deadline = loop.deadlineOf(startNanos).earlier(own);
    }

    Duration elapsed() {
      return Duration.ofNanos(ticker.nanoTime() - startNanos);
    }
  }

  /**
   * True while the calling thread runs a batch of this updater: an update a mutator makes from
   * there must run alone. Queued, it could wait for a leader that waits for this thread (two
   * leaders updating each other's documents), and its own document's queue is behind it.
   */
  boolean runningHere() {
    return runningHere.get() != null;
  }

  /** The state of a thread while it runs batches of this updater. */
  private static final class Running {
    boolean interruptSetAside;
  }

  /**
   * Runs every request to an answer. In a batch that holds another caller's request, an
   * interrupt of the leader (the calling thread) is set aside until the batch is done and then
   * restored: those callers did not ask to stop, and the driver would refuse the round trips of
   * an interrupted thread. It cuts a backoff short and fails nobody. The leader's own request
   * alone runs as a lone update, which an interrupt ends.
   */
  void run(Object id, Requests requests) {
    Running outer = runningHere.get();
    Running here = outer != null ? outer : new Running();
    runningHere.set(here);
    try {
      runBatch(id, requests);
    } finally {
      if (outer == null) {
        runningHere.remove();
        if (here.interruptSetAside) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Before a round trip of a batch of several: see {@link #run}. */
  private void setInterruptAside() {
    if (Thread.interrupted()) {
      runningHere.get().interruptSetAside = true;
    }
  }

  private void runBatch(Object id, Requests requests) {
    listener.onBatch(scope, id, requests.size());
    if (requests.size() == 1 && requests.isCallersOwn(0)) {
      runAlone(id, requests); // the leader's own update alone is a lone update, bit for bit
      return;
    }
    List<Caller> pending = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      pending.add(new Caller(i, requests.mutator(i), requests.returnAfter(i),
          requests.submittedNanos(i), requests.deadline(i)));
    }
    int retries = 0;
    while (!pending.isEmpty()) {
      // A round answers all its callers: it is bounded by the earliest of their deadlines,
      // not by the leader's thread's (the leader may be answered already, or not in it).
      List<Caller> retried = Deadline.replacing(roundDeadline(pending),
          () -> round(id, requests, pending));
      if (!retried.isEmpty()) {
        retries++;
        backOffOrGiveUp(id, requests, pending, retried, retries);
      }
    }
  }

  private static Deadline roundDeadline(List<Caller> pending) {
    Deadline earliest = pending.get(0).deadline;
    for (Caller c : pending) {
      earliest = c.deadline.earlier(earliest);
    }
    return earliest;
  }

  private void runAlone(Object id, Requests requests) {
    UpdateOutcome outcome;
    try {
      outcome = loop.run(id, requests.mutator(0), requests.returnAfter(0),
          requests.submittedNanos(0));
    } catch (RuntimeException e) {
      requests.fail(0, e);
      return;
    }
    requests.succeed(0, outcome);
  }

  /**
   * One read, the mutators, one write. Answers whom it can, removes them from {@code pending},
   * and returns the callers to retry after a backoff (empty: go on at once, if any remain).
   */
  private List<Caller> round(Object id, Requests requests, List<Caller> pending) {
    RawBsonDocument current;
    try {
      setInterruptAside();
      current = store.read(id);
    } catch (RuntimeException e) {
      List<Caller> all = new ArrayList<>(pending);
      all.forEach(c -> startAttempt(id, c));
      return failedRead(id, requests, pending, all, e);
    }
    if (current == null) {
      for (Caller c : new ArrayList<>(pending)) {
        startAttempt(id, c);
        fail(id, requests, pending, c, new DocumentNotFoundException(
            store.collectionName(), id, c.attempt, c.elapsed(), false));
      }
      return List.of();
    }
    OptionalLong expected;
    try {
      expected = versions.expectedVersion(id, current);
    } catch (RuntimeException e) {
      for (Caller c : new ArrayList<>(pending)) {
        startAttempt(id, c);
        fail(id, requests, pending, c, e);
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
    BsonDocument working = mutable(current);
    BsonDocument read = working; // never changed: each step copies what it writes
    RoundDocuments documents = new RoundDocuments(documentCodec);
    MergedWrite merged = null;
    List<Caller> round = new ArrayList<>();
    int writers = 0;
    Mutation single = null;
    BsonDocument singleUpdate = null;
    for (Caller c : new ArrayList<>(pending)) {
      if (c.alone && !round.isEmpty()) {
        break;
      }
      OptionalLong shown = writers == 0 ? expected : OptionalLong.of(base + writers);
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
          update = loop.checkedUpdate(u.update());
        } else if (mutation instanceof Mutation.Replace r) {
          loop.checkReplacement(r.replacement(), working.get("_id"), shown);
        }
      } catch (RuntimeException | Error e) { // an Error too fails only its own caller
        mutation = null;
        thrown = e;
      }
      if (thrown != null || mutation instanceof Mutation.None) {
        startAttempt(id, c);
        if (writers == 0) { // decided on the document as read: answered as it would be alone
          if (thrown != null) {
            fail(id, requests, pending, c, thrown);
          } else {
            succeed(id, requests, pending, c, new UpdateOutcome(id,
                c.returnAfter ? documents.copyOf(working) : null, base, c.attempt, c.elapsed(), false));
          }
        } else {
          c.writer = false;
          c.thrown = thrown;
          c.state = c.returnAfter && thrown == null ? working : null; // never changed after
          c.version = base + writers;
          round.add(c);
        }
        continue;
      }
      BsonDocument next = c.alone || !combinable ? null : applied(working, mutation, update);
      if (next != null) {
        boolean replaces = mutation instanceof Mutation.Replace;
        if (merged == null) {
          merged = replaces ? MergedWrite.ofReplacement(store::constraints)
              : MergedWrite.ofOperators(read, store::constraints);
        }
        if (!(replaces ? merged.addReplacement() : merged.add(update, next))) {
          next = null; // its changes do not merge with this round's: sent in the next one
        }
      }
      if (next == null && writers > 0) {
        break; // not combinable: first writer of the next round
      }
      startAttempt(id, c);
      writers++;
      c.writer = true;
      c.thrown = null;
      c.version = base + writers;
      round.add(c);
      if (writers == 1) {
        single = mutation;
        singleUpdate = update;
      }
      if (next == null) {
        break; // sent alone, as it is
      }
      next.put(versions.field(), new BsonInt64(c.version));
      working = next;
      c.state = c.returnAfter ? working : null;
    }
    if (writers == 0) {
      return List.of();
    }
    return write(id, requests, pending, round, writers, expected, working, merged, single,
        singleUpdate, documents);
  }

  private List<Caller> write(Object id, Requests requests, List<Caller> pending,
      List<Caller> round, int writers, OptionalLong expected, BsonDocument working,
      MergedWrite merged, Mutation single, BsonDocument singleUpdate, RoundDocuments documents) {
    long base = expected.orElse(0);
    Bson filter = expected.isPresent()
        ? versions.filter(id, base)
        : versions.missingFilter(id);
    Caller first = round.stream().filter(c -> c.writer).findFirst().orElseThrow();
    Store.WriteResult result;
    try {
      setInterruptAside();
      if (writers > 1 && merged.replacing()) {
        result = store.replace(filter, asDocument(working), false);
      } else if (writers > 1) {
        result = store.update(filter, merged.guard(),
            merged.update(versions.field(), writers, working));
      } else if (single instanceof Mutation.Update) {
        result = store.update(filter, loop.withIncrement(singleUpdate), first.returnAfter);
      } else {
        Document replacement = new Document(((Mutation.Replace) single).replacement());
        replacement.put(versions.field(), base + 1);
        result = store.replace(filter, replacement, first.returnAfter);
      }
    } catch (RuntimeException e) {
      return writeFailed(id, requests, pending, round, writers, base, e);
    }
    if (!result.matched()) {
      return missed(id, requests, pending, round);
    }
    for (Caller c : round) {
      if (c.thrown != null) {
        fail(id, requests, pending, c, c.thrown);
        continue;
      }
      Document after;
      long version = c.version;
      if (writers == 1 && c.writer) {
        after = result.after(); // its version is c.version: the filter matched the one read
      } else {
        after = c.state == null ? null : documents.copyOf(c.state);
      }
      succeed(id, requests, pending, c,
          new UpdateOutcome(id, after, version, c.attempt, c.elapsed(), c.writer));
    }
    return List.of();
  }

  private List<Caller> writeFailed(Object id, Requests requests, List<Caller> pending,
      List<Caller> round, int writers, long base, RuntimeException e) {
    String coll = store.collectionName();
    MongoErrors.Kind kind = MongoErrors.classifyWrite(e);
    if (kind == MongoErrors.Kind.NOT_APPLIED_TRANSIENT) {
      return transientFailure(id, requests, pending, round, e);
    }
    if (writers > 1 && kind != MongoErrors.Kind.OUTCOME_UNKNOWN) {
      // Refused, so not applied: let the server judge each change by itself.
      for (Caller c : round) {
        c.alone = c.writer;
      }
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
        default -> permanent(id, c, "failed with an error that is not retried", e);
      };
      fail(id, requests, pending, c, failure);
    }
    return List.of();
  }

  /** The write matched nothing: a conflict (retry the round) or a deletion (all fail). */
  private List<Caller> missed(Object id, Requests requests, List<Caller> pending,
      List<Caller> round) {
    RawBsonDocument probe;
    try {
      setInterruptAside();
      probe = store.probe(id, versions.field());
    } catch (RuntimeException e) {
      return failedRead(id, requests, pending, round, e);
    }
    if (probe == null) {
      for (Caller c : round) {
        fail(id, requests, pending, c, new DocumentNotFoundException(
            store.collectionName(), id, c.attempt, c.elapsed(), true));
      }
      return List.of();
    }
    OptionalLong seen = versions.versionOf(id, probe);
    for (Caller c : round) {
      if (seen.isPresent()) {
        c.lastSeenVersion = seen;
      }
      c.lastTransient = null;
      listener.onConflict(scope, id, c.attempt);
    }
    return round;
  }

  private List<Caller> failedRead(Object id, Requests requests, List<Caller> pending,
      List<Caller> callers, RuntimeException e) {
    if (!MongoErrors.isTransientRead(e)) {
      for (Caller c : callers) {
        fail(id, requests, pending, c,
            permanent(id, c, "could not read the document; nothing was written", e));
      }
      return List.of();
    }
    return transientFailure(id, requests, pending, callers, e);
  }

  private List<Caller> transientFailure(Object id, Requests requests, List<Caller> pending,
      List<Caller> callers, RuntimeException e) {
    if (!retry.retryTransientErrors()) {
      for (Caller c : callers) {
        fail(id, requests, pending, c, new UpdateFailedException(store.collectionName(), id,
            c.attempt, c.elapsed(), "hit a transient error (not retried: retryTransientErrors"
                + " is off); nothing was written", e));
      }
      return List.of();
    }
    for (Caller c : callers) {
      c.lastTransient = e;
    }
    return callers;
  }

  private RuntimeException permanent(Object id, Caller c, String what, RuntimeException e) {
    if (!(e instanceof com.mongodb.MongoException)) {
      return e;
    }
    return new UpdateFailedException(store.collectionName(), id, c.attempt, c.elapsed(), what, e);
  }

  /**
   * After the batch's {@code retries}-th conflict or transient error: each retried caller
   * out of attempts, or whose deadline the backoff would reach, gives up; then one backoff.
   * An interrupt of the leader cuts the backoff short but fails nobody (see {@link #run}).
   */
  private void backOffOrGiveUp(Object id, Requests requests, List<Caller> pending,
      List<Caller> retried, int retries) {
    Duration backoff = retry.backoff(retries,
        random != null ? random : ThreadLocalRandom.current());
    long now = ticker.nanoTime();
    for (Caller c : retried) {
      if (!pending.contains(c)) {
        continue;
      }
      RetriesExhaustedException.Budget out = null;
      if (c.attempt >= retry.maxAttempts()) {
        out = RetriesExhaustedException.Budget.ATTEMPTS;
      } else if (now + backoff.toNanos() - (c.startNanos + retry.deadline().toNanos()) >= 0
          || (c.own != null && c.own.endsWithin(backoff))) { // the caller's own thread's
        out = RetriesExhaustedException.Budget.DEADLINE;
      }
      if (out != null) {
        RetriesExhaustedException e = new RetriesExhaustedException(store.collectionName(), id,
            c.attempt, c.elapsed(), out, c.lastSeenVersion, c.lastTransient);
        pending.remove(c);
        listener.onExhausted(scope, id, e.attempts(), e.elapsed());
        requests.fail(c.index, e);
      } else {
        listener.onRetry(scope, id, c.attempt, backoff);
      }
    }
    if (pending.isEmpty()) {
      return;
    }
    try {
      setInterruptAside();
      sleeper.sleep(backoff);
    } catch (InterruptedException e) {
      runningHere.get().interruptSetAside = true;
    }
  }

  private void startAttempt(Object id, Caller c) {
    c.attempt++;
    listener.onAttempt(scope, id, c.attempt);
  }

  private void succeed(Object id, Requests requests, List<Caller> pending, Caller c,
      UpdateOutcome outcome) {
    pending.remove(c);
    listener.onSuccess(scope, id, c.attempt, outcome.elapsed());
    requests.succeed(c.index, outcome);
  }

  private void fail(Object id, Requests requests, List<Caller> pending, Caller c,
      Throwable error) {
    pending.remove(c);
    listener.onFailure(scope, id, error);
    requests.fail(c.index, error);
  }

  /** The document after {@code mutation}, or null when it is not modelled in memory. */
  private BsonDocument applied(BsonDocument working, Mutation mutation, BsonDocument update) {
    if (mutation instanceof Mutation.Update) {
      try {
        return InMemoryUpdate.apply(working, update);
      } catch (InMemoryUpdate.NotModelled e) {
        return null;
      }
    }
    Document given = ((Mutation.Replace) mutation).replacement();
    BsonDocument replacement = given.toBsonDocument(BsonDocument.class, store.codecRegistry());
    BsonDocument next = new BsonDocument("_id", working.get("_id"));
    for (var field : replacement.entrySet()) {
      if (!field.getKey().equals("_id")) {
        next.put(field.getKey(), field.getValue());
      }
    }
    return next;
  }

  private BsonDocument mutable(RawBsonDocument raw) {
    return new BsonDocumentCodec().decode(
        new BsonDocumentReader(raw), DecoderContext.builder().build());
  }

  private Document decode(BsonDocument doc) {
    return documentCodec.decode(new BsonDocumentReader(doc), DecoderContext.builder().build());
  }

  private Document asDocument(BsonDocument doc) {
    return encodesBsonValues ? new Document(doc) : decode(doc);
  }

}
