package io.writeguard.counter;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
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
 *       from (an unconditional {@code $inc}, which cannot fail on value) and throw
 *       {@link InsufficientBalanceException}; the net effect is nothing written.
 * </ol>
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
 * is never mistaken for a missing balance. A single-shard decrement that misses while a drain
 * has parked amounts simply comes here and waits for the lock.
 *
 * <p>What it does not give: atomicity against a crash. A process that dies mid-drain leaves
 * the drained amounts out of the counter (never negative, but short). If the server fails
 * while giving back, {@link StrandedBalanceException} names the amounts. When that matters,
 * use {@link CounterLayout#FIELDS} (one atomic update) or run the combine in a transaction on
 * a replica set. Thread-safe.
 */
final class LockedDrainCombiner implements Combiner {
  private static final Logger log = LoggerFactory.getLogger(LockedDrainCombiner.class);
  private static final int PASSES = 2;
  private static final int TRIES_PER_SHARD = 8;
  private static final int GIVE_BACK_TRIES = 3;

  private final ShardStore store;
  private final int shards;
  private final LockService locks;
  private final Duration lockWait;
  private final String lockPrefix;

  LockedDrainCombiner(ShardStore store, int shards, LockService locks, Duration lockWait,
      String lockPrefix) {
    this.store = store;
    this.shards = shards;
    this.locks = locks;
    this.lockWait = lockWait;
    this.lockPrefix = lockPrefix;
  }

  @Override
  public DecrementResult combine(String counterId, long amount, int shardAlreadyTried) {
    long[] seen = store.read(counterId);
    for (int i : ShardPlans.largestFirst(seen)) {
      if (seen[i] < amount) {
        break;
      }
      if (i != shardAlreadyTried && store.tryTake(counterId, i, amount)) {
        return new DecrementResult(amount, 1, false);
      }
    }
    try (LockHandle lock = locks.acquire(lockPrefix + counterId, lockWait)) {
      return drain(counterId, amount);
    }
  }

  private DecrementResult drain(String counterId, long amount) {
    long[] taken = new long[shards];
    long remaining = amount;
    try {
      for (int pass = 0; pass < PASSES && remaining > 0; pass++) {
        long[] values = store.read(counterId);
        for (int i : ShardPlans.largestFirst(values)) {
          long available = values[i];
          for (int t = 0; t < TRIES_PER_SHARD && available > 0 && remaining > 0; t++) {
            long take = Math.min(available, remaining);
            if (store.tryTake(counterId, i, take)) {
              taken[i] += take;
              remaining -= take;
              break;
            }
            available = store.readOne(counterId, i); // it moved under us; take what is left
          }
        }
      }
    } catch (RuntimeException e) {
      giveBack(counterId, taken, e);
      throw e;
    }
    if (remaining > 0) {
      giveBack(counterId, taken, null);
      throw new InsufficientBalanceException(counterId, amount, amount - remaining);
    }
    return new DecrementResult(amount, ShardPlans.countPositive(taken), true);
  }

  private void giveBack(String counterId, long[] taken, RuntimeException original) {
    Map<Integer, Long> stranded = new LinkedHashMap<>();
    RuntimeException last = original;
    for (int i = 0; i < taken.length; i++) {
      if (taken[i] == 0) {
        continue;
      }
      boolean returned = false;
      for (int t = 0; t < GIVE_BACK_TRIES && !returned; t++) {
        try {
          store.add(counterId, i, taken[i]);
          returned = true;
        } catch (RuntimeException e) {
          log.warn("counter '{}': giving back {} to shard {} failed (try {})",
              counterId, taken[i], i, t + 1, e);
          last = e;
        }
      }
      if (!returned) {
        stranded.put(i, taken[i]);
      }
    }
    if (!stranded.isEmpty()) {
      StrandedBalanceException e = new StrandedBalanceException(counterId, stranded, last);
      if (original != null && original != last) {
        e.addSuppressed(original);
      }
      throw e;
    }
  }
}
