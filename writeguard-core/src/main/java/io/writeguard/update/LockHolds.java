package io.writeguard.update;

import com.mongodb.MongoNamespace;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The documents, and the locks by service and key, the calling thread holds through any
 * {@link LockedUpdater} (nested updates). Why per thread and shared by every instance: an update
 * nested in a mutator may go through another instance (a typed one, another strategy name) and
 * would otherwise wait for a lock its own thread holds. Null while the thread holds nothing, so
 * a pooled thread keeps no object of this library between updates.
 *
 * <p>Lists, not a set and a map: they hold as many entries as updates are nested on the thread
 * (one, nearly always), and a list adds and removes one without hashing. A document is never in
 * twice (a nested update of it is refused first), nor a lock of one service under one key.
 * Confined to its thread.
 */
final class LockHolds {
  private static final ThreadLocal<LockHolds> HOLDING = new ThreadLocal<>();
  /** Holds nothing and is never changed: what a thread that holds nothing sees. */
  private static final LockHolds NONE = new LockHolds();

  private final List<HeldDocument> documents = new ArrayList<>(2);
  /** Each lock with its key, added and removed as one entry so the two never fall apart. */
  private final List<HeldLock> locks = new ArrayList<>(2);

  private LockHolds() {}

  /** What the calling thread holds (an empty record when nothing). */
  static LockHolds current() {
    LockHolds holds = HOLDING.get();
    return holds != null ? holds : NONE;
  }

  /** True when the calling thread's record is gone (for tests). */
  static boolean threadRecordsNothing() {
    return HOLDING.get() == null;
  }

  /** The lock this thread holds from {@code service} under {@code lockKey}, or null. */
  LockHandle lock(LockService service, String lockKey) {
    for (int i = locks.size() - 1; i >= 0; i--) {
      HeldLock held = locks.get(i);
      if (held.service == service && held.key.equals(lockKey)) {
        return held.lock;
      }
    }
    return null;
  }

  /** Whether this thread holds {@code document} of {@code namespace} under {@code service}. */
  boolean holds(LockService service, MongoNamespace namespace, DocumentKey document) {
    return documents.contains(new HeldDocument(service, namespace, document));
  }

  /** Whether this thread is inside any locked update. */
  boolean holdsAnyDocument() {
    return !documents.isEmpty();
  }

  /**
   * Runs {@code work} with {@code document} recorded as held under {@code lock}; the record
   * is dropped when the thread's outermost locked update ends.
   */
  static <T> T holdingWhile(LockService service, MongoNamespace namespace, DocumentKey document,
      String lockKey, LockHandle lock, Supplier<T> work) {
    LockHolds holds = current();
    if (holds == NONE) {
      holds = new LockHolds();
      HOLDING.set(holds);
    }
    HeldLock newLock = holds.lock(service, lockKey) == null
        ? new HeldLock(service, lockKey, lock) : null;
    if (newLock != null) {
      holds.locks.add(newLock);
    }
    HeldDocument held = new HeldDocument(service, namespace, document);
    holds.documents.add(held);
    try {
      return work.get();
    } finally {
      holds.documents.remove(holds.documents.lastIndexOf(held));
      if (newLock != null) {
        holds.locks.remove(holds.locks.lastIndexOf(newLock));
      }
      if (holds.documents.isEmpty()) {
        HOLDING.set(null); // the outermost update of this thread is done (see BatchUpdate.run)
      }
    }
  }

  /** A lock service is one by identity: two services never hand out the same lock object. */
  private record HeldLock(LockService service, String key, LockHandle lock) {}

  /**
   * A document held under a lock service: its collection's names and its {@code _id}, as
   * MongoDB tells them apart. The service is part of it because a namespace does not say which
   * deployment it is on: the same names on another deployment, under a lock service of their
   * own, are another document (a mutator may mirror its change there), while under one service
   * they share lock keys anyway.
   */
  private record HeldDocument(LockService service, MongoNamespace namespace, DocumentKey key) {}
}
