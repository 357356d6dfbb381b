package io.writeguard.spring.previousapi;

import io.writeguard.lock.LockHandle;
import io.writeguard.redis.RedisLockService;
import io.writeguard.spring.LeaseLocked;
import io.writeguard.spring.WriteGuardUpdaters;
import java.time.Duration;

/**
 * A service written against the starter's earlier documentation, unchanged: it injects the
 * {@code RedisLockService} bean by type (the bean was of that type then), the updaters, and runs
 * an {@code @LeaseLocked} method on the {@code redis} service. Nothing here may need editing for
 * the application to start and serve; see {@code PreviousApiApplicationTest}.
 */
public class PreviousApiAccountService {
  private final WriteGuardUpdaters updaters;
  private final RedisLockService redisLocks;

  public PreviousApiAccountService(WriteGuardUpdaters updaters, RedisLockService redisLocks) {
    this.updaters = updaters;
    this.redisLocks = redisLocks;
  }

  public PreviousApiAccount deposit(String id, long amount) {
    return updaters.entities(PreviousApiAccount.class).update(id, account -> {
      account.setBalance(account.getBalance() + amount); // pure: may run once per attempt
      return account;
    });
  }

  @LeaseLocked(key = "'account:' + #p0", waitTimeout = "5s", service = "redis")
  public long withdrawUnderLock(String id, long amount, LockHandle lock) {
    return updaters.entities(PreviousApiAccount.class).update(id, account -> {
      account.setBalance(account.getBalance() - amount);
      return account;
    }).getBalance();
  }

  /** Work under the Redis lock taken by hand, as the Redis lock page showed it. */
  public long tokenOfAHandTakenLock(String key) {
    try (LockHandle lock = redisLocks.acquire(key, Duration.ofSeconds(5))) {
      return lock.token();
    }
  }

  public RedisLockService redisLocks() {
    return redisLocks;
  }
}
