package io.writeguard.counter;

import io.writeguard.idempotency.OpResult;
import io.writeguard.internal.MustFinish;
import io.writeguard.internal.Uninterrupted;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.UnderLock;
import io.writeguard.update.WriteOutcomes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Combines document shards, where no single update can see them all.
 *
 * <p>Steps:
 * <ol>
 *   <li>Read every shard and try, largest first, each other shard that seemed to hold enough
 *       (conditional {@code $inc} with {@code $gte}). No lock is needed for one shard.
 *   <li>Otherwise take the counter's lock (one key per counter) and drain: read the shards,
 *       and from the largest down take {@code min(value, remaining)} with a conditional
 *       {@code $inc}; when a take misses (the shard moved), re-read that shard and try the
 *       smaller amount. Two passes, so increments that landed on an already visited shard
 *       count too.
 *   <li>Enough gathered: done. Not enough: give every drained amount back to the shard it came
 *       from and throw {@link InsufficientBalanceException}; the net effect is nothing written.
 * </ol>
 *
 * <p>Why every drain write carries an operation id. A reply can be lost after the server
 * applied the write (socket timeout, failover). Re-sending a plain {@code $inc} then applies it
 * twice: a refused decrement that gives back 3 twice creates 3. Forgetting the take instead
 * loses it. So each take has an id ({@code <drain>:take:<pass>:<shard>}) and each give-back
 * another, checked in the filter by an {@link io.writeguard.idempotency.OperationIdGuard} and
 * recorded in the same write: a re-sent take or give-back applies once. A give-back also
 * requires its take's id to be recorded, so a take whose outcome stayed unknown is given back
 * exactly when it was applied: money is never created, and a lost reply is never lost money.
 * The writes outside the drain (the single-shard takes) carry no id and are sent once; a lost
 * reply there is a {@link io.writeguard.update.WriteOutcomeUnknownException}.
 *
 * <p>Why this is safe under races. Every write that lowers a shard is conditional on that
 * shard holding at least the amount, so no shard is ever negative, and a sum of non-negative
 * shards (however torn the read across documents) is never negative: no reader ever sees a
 * negative total. Single-shard decrements keep running while a drain holds the lock; each one
 * and each drain step is checked by the server against the current value, so whichever comes
 * first wins and the other misses and moves on. Safety therefore does not depend on the lock;
 * the lock is for liveness: it keeps two drains from each grabbing part of the balance, both
 * failing and both giving back (which would refuse decrements the total could cover). It also
 * means "insufficient" is only ever decided by the one drain holding the lock, after every
 * earlier drain has finished or given its amounts back, so an amount parked by another drain
 * is never mistaken for a missing balance; except a give-back that goes on in the background
 * ({@link MustFinish}): its drain lets the lock go before the amount is back, and until it
 * lands a decrement the whole balance covers may be refused. A single-shard decrement that misses while a drain
 * has parked amounts simply comes here and waits for the lock.
 *
 * <p>What it does not give: atomicity against a crash. A process that dies mid-drain leaves
 * the drained amounts out of the counter (never negative, but short). If the server fails
 * mid-drain, everything drained is given back and {@link DecrementFailedException} says
 * nothing was written; if the give-back cannot be confirmed either,
 * {@link StrandedBalanceException} names the amounts. Give-backs are not cut by the caller's
 * deadline: they record takes already applied, so they run under their own budget. A write the server still holds when its
 * reply is lost and that lands after the give-back checked for it can leave the counter short
 * by that take (never over, never negative). When that matters,
 * use {@link CounterLayout#FIELDS} (one atomic update) or run the combine in a transaction on
 * a replica set. Thread-safe.
 */
final class LockedDrainCombiner implements Combiner {
  private static final Logger log = LoggerFactory.getLogger(LockedDrainCombiner.class);
  private static final int PASSES = 2;
  private static final int TRIES_PER_SHARD = 8;
  /** Sends of one idempotent write before its failure is final. */
  private static final int SENDS = 3;

  private final DocumentShardStore store;
  private final int shards;
  private final LockService locks;
  private final Duration lockWait;
  private final String lockPrefix;

  LockedDrainCombiner(DocumentShardStore store, int shards, LockService locks, Duration lockWait,
      String lockPrefix) {
    this.store = store;
    this.shards = shards;
    this.locks = locks;
    this.lockWait = lockWait;
    this.lockPrefix = lockPrefix;
  }

  /** One amount drained (or, while in doubt, sent to be drained) from a shard. */
  private record Take(int shard, long amount, String opId, boolean confirmed) {}

  @Override
  public DecrementResult combine(String counterId, long amount, int shardAlreadyTried,
      ChangeRecorder recorder) {
    long[] seen = store.read(counterId);
    for (int i : ShardPlans.largestFirst(seen)) {
      if (seen[i] < amount) {
        break;
      }
      if (i != shardAlreadyTried && store.tryTake(counterId, i, amount, recorder)) {
        return new DecrementResult(amount, 1, false);
      }
    }
    LockHandle lock = locks.acquire(lockPrefix + counterId, lockWait);
    // Not try-with-resources: a release failing after a drain that took must not report the
    // applied decrement as failed (a caller would retry it and take twice).
    return UnderLock.run(lock, () -> drain(counterId, amount, recorder));
  }

  private DecrementResult drain(String counterId, long amount, ChangeRecorder recorder) {
    String drainId = UUID.randomUUID().toString();
    List<Take> takes = new ArrayList<>();
    long remaining = amount;
    try {
      for (int pass = 0; pass < PASSES && remaining > 0; pass++) {
        long[] values = store.read(counterId);
        for (int i : ShardPlans.largestFirst(values)) {
          long available = values[i];
          // One id per shard and pass: a take that certainly missed left no trace, so the
          // next, smaller take of the same shard may reuse it.
          String opId = drainId + ":take:" + pass + ":" + i;
          for (int t = 0; t < TRIES_PER_SHARD && available > 0 && remaining > 0; t++) {
            Take take = new Take(i, Math.min(available, remaining), opId, false);
            takes.add(take); // before sending: if its outcome stays unknown, it is given back
            OpResult result = send(() -> store.takeOnce(counterId, i, take.amount(), opId, recorder));
            takes.remove(takes.size() - 1);
            if (result != OpResult.NOT_MATCHED) {
              takes.add(new Take(i, take.amount(), opId, true));
              remaining -= take.amount();
              break;
            }
            available = store.readOne(counterId, i); // it moved under us; take what is left
          }
        }
      }
    } catch (Throwable e) { // the recorder's undeclared checked exception too: given back
      giveBack(counterId, takes, e, recorder);
      if (e instanceof RuntimeException) {
        throw new DecrementFailedException(counterId, amount, e);
      }
      throw e; // an Error or the recorder's checked exception, as it was thrown
    }
    if (remaining > 0) {
      giveBack(counterId, takes, null, recorder);
      throw new InsufficientBalanceException(counterId, amount, amount - remaining);
    }
    return new DecrementResult(amount, (int) takes.stream().mapToInt(Take::shard).distinct()
        .count(), true);
  }

  /**
   * Gives every take back. A give-back records a take already applied, so it runs under its own
   * budget, not the caller's deadline, and with the interrupt set aside ({@link MustFinish}):
   * a drain that failed because its deadline passed must still return what it took, and the
   * driver refuses every call of an interrupted thread. One not done when the caller's wait
   * ends goes on in the background and is reported as returning, not as missing. A give-back
   * that fails names its take as missing only if that take was applied: certainly (confirmed),
   * or by the shard's record of it; one whose record cannot be read is in doubt.
   */
  private void giveBack(String counterId, List<Take> takes, Throwable original,
      ChangeRecorder recorder) {
    Map<Integer, Long> stranded = new LinkedHashMap<>();
    Map<Integer, Long> inDoubt = new LinkedHashMap<>();
    Map<Integer, Long> returning = new LinkedHashMap<>();
    Throwable last = original;
    // One wait for them all: the caller waits no longer for every give-back than for one.
    MustFinish.Wait wait = MustFinish.Wait.start();
    for (Take take : takes) {
      String backId = take.opId() + ":back";
      try {
        // A confirmed take no longer recorded fails here and is named stranded below.
        MustFinish.call("giving back " + take.amount() + " to shard " + take.shard()
            + " of counter '" + counterId + "'", wait, () -> confirmedBack(take,
                store.giveBackOnce(counterId, take.shard(), take.amount(), take.opId(), backId,
                    recorder)));
      } catch (Throwable e) { // the recorder's undeclared checked exception too
        if (recordedDespite(counterId, take.shard(), backId) == Boolean.TRUE) {
          continue; // the reply was lost, the give-back was not
        }
        Boolean taken = take.confirmed() ? Boolean.TRUE
            : recordedDespite(counterId, take.shard(), take.opId());
        if (taken == Boolean.FALSE) {
          continue; // the take never happened: nothing is missing
        }
        last = e;
        if (e instanceof MustFinish.Continuing) {
          // Still being sent; it applies exactly if the take did.
          returning.merge(take.shard(), take.amount(), Long::sum);
          continue;
        }
        log.warn("counter '{}': giving back {} to shard {} failed", counterId, take.amount(),
            take.shard(), e);
        (taken == null ? inDoubt : stranded).merge(take.shard(), take.amount(), Long::sum);
      }
    }
    if (!stranded.isEmpty() || !inDoubt.isEmpty() || !returning.isEmpty()) {
      StrandedBalanceException e =
          new StrandedBalanceException(counterId, stranded, inDoubt, returning, last);
      if (original != null && original != last) {
        e.addSuppressed(original);
      }
      throw e;
    }
  }

  /**
   * The result of a give-back, refused as an error when its take was applied for certain and
   * yet the shard no longer records it: nothing was given back, and sending again cannot
   * help. The caller then names the amount stranded; a give-back finished in the background
   * is logged as a warning instead of as done (its drain let the lock go, and other drains may
   * push the take's id out of the shard's last {@code _ops} meanwhile).
   */
  private static OpResult confirmedBack(Take take, OpResult result) {
    if (result == OpResult.NOT_MATCHED && take.confirmed()) {
      throw new IllegalStateException("shard " + take.shard() + " no longer records its take "
          + take.opId() + " (its document was replaced, or more drains ran since than its _ops"
          + " keeps): " + take.amount() + " was not given back; the counter is short by it");
    }
    return result;
  }

  /** Whether the shard records {@code opId}; null when that cannot be read. */
  private Boolean recordedDespite(String counterId, int shard, String opId) {
    try {
      return Uninterrupted.call(() -> store.recorded(counterId, shard, opId));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Sends an idempotent write up to {@link #SENDS} times while it fails in a way that may be
   * temporary (a lost reply, no server): re-sending it cannot apply it twice.
   */
  private static OpResult send(Supplier<OpResult> write) {
    RuntimeException last = null;
    for (int i = 0; i < SENDS; i++) {
      try {
        return write.get();
      } catch (RuntimeException e) {
        if (!WriteOutcomes.isOutcomeUnknown(e) && !WriteOutcomes.certainlyNotApplied(e)) {
          throw e;
        }
        last = e;
      }
    }
    throw last;
  }
}
