package io.writeguard.redis;

import io.writeguard.lock.ForwardingStore;
import io.writeguard.lock.LeaseStore;
import java.util.concurrent.atomic.AtomicReference;

/** A store whose next take is applied and then fails as if its reply were lost. For tests. */
final class LosingStore extends ForwardingStore {
  private final AtomicReference<Boolean> loseNext;

  LosingStore(LeaseStore store, AtomicReference<Boolean> loseNext) {
    super(store);
    this.loseNext = loseNext;
  }

  @Override
  public Take take(String key, String owner, String attempt, int block, boolean queued) {
    Take take = super.take(key, owner, attempt, block, queued);
    if (loseNext.getAndSet(false)) {
      throw new IllegalStateException("reply lost (test): the take was applied");
    }
    return take;
  }
}
