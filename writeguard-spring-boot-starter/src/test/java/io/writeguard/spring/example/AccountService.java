package io.writeguard.spring.example;

import static com.mongodb.client.model.Updates.set;

import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.spring.CurrentLock;
import io.writeguard.spring.LeaseLocked;
import io.writeguard.spring.WriteGuardUpdaters;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.springframework.stereotype.Service;

/** The example's service: one optimistic read-modify-write, two locked fenced ones. */
@Service
public class AccountService {
  private final WriteGuardUpdaters updaters;
  private final FencedWriter fenced;
  private final AtomicInteger lockedBodies = new AtomicInteger();

  public AccountService(WriteGuardUpdaters updaters) {
    this.updaters = updaters;
    this.fenced = updaters.fencedWriter(Account.class);
  }

  /** How many times a locked body started; for the tests that check a body did not run. */
  public int lockedBodies() {
    return lockedBodies.get();
  }

  /** Read, add, write back: optimistic, retried on conflict, never loses a concurrent deposit. */
  public Account deposit(String id, long amount) {
    return updaters.entities(Account.class).update(id, account -> {
      account.setBalance(account.getBalance() + amount);
      return account;
    });
  }

  /**
   * Read-modify-write of {@code settled} under the MongoDB lease lock, fenced: the claim raises
   * the document's fence to this holder's token, and the write is refused by MongoDB if a
   * newer holder got there since. The handle comes in as {@code lock} (callers pass null).
   */
  @LeaseLocked(key = "'account:' + #id", waitTimeout = "60s")
  public long settle(String id, long amount, LockHandle lock) {
    lockedBodies.incrementAndGet();
    Document current = fenced.claim(lock, id).orElseThrow();
    long next = ((Number) current.get("settled")).longValue() + amount;
    fenced.updateOne(lock, id, set("settled", next));
    return lock.token();
  }

  /** The same through the Redis lock, reading the handle from {@link CurrentLock}. */
  @LeaseLocked(key = "'account:' + #id", waitTimeout = "60s", service = "redis")
  public long settleViaRedis(String id, long amount) {
    lockedBodies.incrementAndGet();
    LockHandle lock = CurrentLock.get();
    Document current = fenced.claim(lock, id).orElseThrow();
    fenced.updateOne(lock, id, set("settled", ((Number) current.get("settled")).longValue() + amount));
    return lock.token();
  }

  /**
   * {@link #settle} with {@code meanwhile} run between the claim and the write: the test makes
   * a newer holder appear there. Returns whether the injected handle was {@link CurrentLock}'s.
   */
  @LeaseLocked(key = "'account:' + #id", waitTimeout = "60s")
  public boolean settleWith(String id, long amount, Runnable meanwhile, LockHandle lock) {
    lockedBodies.incrementAndGet();
    boolean same = lock == CurrentLock.get();
    Document current = fenced.claim(lock, id).orElseThrow();
    meanwhile.run();
    fenced.updateOne(lock, id, set("settled", ((Number) current.get("settled")).longValue() + amount));
    return same;
  }

  /** Holds the lock for {@code id} with a short wait, for the timeout test. */
  @LeaseLocked(key = "'account:' + #id", waitTimeout = "300ms")
  public void settleImpatiently(String id) {
    lockedBodies.incrementAndGet();
  }

  /** Fails inside the lock, for the "always released" test. */
  @LeaseLocked(key = "'account:' + #id")
  public void failWhileLocked(String id) {
    lockedBodies.incrementAndGet();
    throw new IllegalStateException("failing on purpose for " + id);
  }

  /** Calls a method locked on the same key from inside the lock (through the proxy). */
  @LeaseLocked(key = "'account:' + #id")
  public void reenter(String id, AccountService self) {
    self.settleImpatiently(id);
  }

  /** A wait that is not a duration. */
  @LeaseLocked(key = "#id", waitTimeout = "soon")
  public void waitBadly(String id) {
    lockedBodies.incrementAndGet();
  }

  /** A lock service that does not exist. */
  @LeaseLocked(key = "#id", service = "zookeeper")
  public void lockElsewhere(String id) {
    lockedBodies.incrementAndGet();
  }

  /** A key expression that gives null. */
  @LeaseLocked(key = "#owner")
  public void lockOnOwner(String owner) {
    lockedBodies.incrementAndGet();
  }
}
