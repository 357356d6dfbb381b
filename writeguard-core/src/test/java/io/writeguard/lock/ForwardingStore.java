package io.writeguard.lock;


/**
 * A {@link LeaseStore} that passes every call on; tests (of every lock backend, through the
 * test-jar) override one call to inject a fault.
 */
public class ForwardingStore implements LeaseStore {
  private final LeaseStore store;

  public ForwardingStore(LeaseStore store) {
    this.store = store;
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public Take take(String key, String owner, String attempt, int block, boolean queued) {
    return store.take(key, owner, attempt, block, queued);
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
