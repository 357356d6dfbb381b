package io.writeguard.redis;

import io.writeguard.internal.LeaseStore;
import java.util.concurrent.atomic.AtomicReference;

/** A store whose next take is applied and then fails as if its reply were lost. For tests. */
final class LosingStore implements LeaseStore {
  private final LeaseStore store;
  private final AtomicReference<Boolean> loseNext;

  LosingStore(LeaseStore store, AtomicReference<Boolean> loseNext) {
    this.store = store;
    this.loseNext = loseNext;
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public Take take(String key, String owner, String attempt, int block, boolean queued) {
    Take take = store.take(key, owner, attempt, block, queued);
    if (loseNext.getAndSet(false)) {
      throw new IllegalStateException("reply lost (test): the take was applied");
    }
    return take;
  }

  @Override
  public boolean renew(String key, String owner, String attempt, Grant grant) {
    return store.renew(key, owner, attempt, grant);
  }

  @Override
  public long release(String key, String owner, String attempt, Grant grant) {
    return store.release(key, owner, attempt, grant);
  }

  @Override
  public void abandon(String key, String owner, String attempt) {
    store.abandon(key, owner, attempt);
  }

  @Override
  public BusyWait busyWait(String key) {
    return store.busyWait(key);
  }
}
