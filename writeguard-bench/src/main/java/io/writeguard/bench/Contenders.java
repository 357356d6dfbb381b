package io.writeguard.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The contenders by name, and which peer each WriteGuard contender is measured against. */
final class Contenders {
  /** What a run measures unless told otherwise, each WriteGuard contender before its peer. */
  static final List<String> DEFAULT = List.of(
      WriteGuardOptimistic.NAME, SpringVersioned.NAME,
      WriteGuardLocked.REDIS, RedissonLocked.NAME,
      WriteGuardLocked.MONGO, ShedLockRetried.NAME,
      SeedLocked.NAME, FlatCombiningReference.NAME, AtomicInc.NAME);

  /** Every name {@link #create} knows. */
  static final List<String> ALL;

  static {
    List<String> all = new ArrayList<>(DEFAULT);
    all.add(AtomicPush.NAME);
    all.add(NaiveFindReplace.NAME);
    all.add(LockByHand.MONGO);
    all.add(LockByHand.REDIS);
    all.add(NaiveFindReplace.BOUNDED);
    all.add(LockByHand.MONGO_BOUNDED);
    all.add(LockByHand.REDIS_BOUNDED);
    all.add(WriteGuardOptimistic.BLIND);
    ALL = List.copyOf(all);
  }

  private static final Map<String, String> PEERS = Map.of(
      WriteGuardOptimistic.NAME, SpringVersioned.NAME,
      WriteGuardLocked.REDIS, RedissonLocked.NAME,
      WriteGuardLocked.MONGO, ShedLockRetried.NAME);

  private Contenders() {}

  /** The peer a WriteGuard contender is compared with; empty for the others. */
  static Optional<String> peerOf(String name) {
    return Optional.ofNullable(PEERS.get(name));
  }

  static boolean needsRedis(List<String> names) {
    return names.contains(WriteGuardLocked.REDIS) || names.contains(RedissonLocked.NAME)
        || names.contains(LockByHand.REDIS) || names.contains(LockByHand.REDIS_BOUNDED);
  }

  /** Refuses an unknown name, listing the known ones. */
  static void check(String name) {
    if (!ALL.contains(name)) {
      throw new IllegalArgumentException("unknown contender '" + name + "'; known: "
          + String.join(", ", ALL));
    }
  }

  /** A new contender on {@code backends}; the caller closes it. */
  static Contender create(String name, Backends backends) {
    check(name);
    return switch (name) {
      case WriteGuardOptimistic.NAME -> new WriteGuardOptimistic(backends);
      case WriteGuardOptimistic.BLIND -> WriteGuardOptimistic.blind(backends);
      case SpringVersioned.NAME -> new SpringVersioned(backends);
      case WriteGuardLocked.REDIS -> WriteGuardLocked.redis(backends);
      case RedissonLocked.NAME -> new RedissonLocked(backends);
      case WriteGuardLocked.MONGO -> WriteGuardLocked.mongo(backends);
      case ShedLockRetried.NAME -> new ShedLockRetried(backends);
      case SeedLocked.NAME -> new SeedLocked(backends, new DocumentLocker(), () -> {});
      case FlatCombiningReference.NAME -> new FlatCombiningReference(backends);
      case AtomicInc.NAME -> new AtomicInc(backends);
      case AtomicPush.NAME -> new AtomicPush(backends);
      case NaiveFindReplace.NAME -> new NaiveFindReplace(backends, () -> {});
      case LockByHand.MONGO -> LockByHand.mongo(backends);
      case LockByHand.REDIS -> LockByHand.redis(backends);
      case NaiveFindReplace.BOUNDED -> NaiveFindReplace.bounded(backends);
      case LockByHand.MONGO_BOUNDED -> LockByHand.mongoBounded(backends);
      case LockByHand.REDIS_BOUNDED -> LockByHand.redisBounded(backends);
      default -> throw new IllegalArgumentException(name);
    };
  }
}
