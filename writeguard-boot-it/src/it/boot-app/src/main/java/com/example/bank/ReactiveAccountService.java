package com.example.bank;

import io.writeguard.spring.ReactiveWriteGuardUpdaters;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/** The same changes for a WebFlux caller: Monos, run on WriteGuard's own executor. */
@Service
public class ReactiveAccountService {
  private final ReactiveWriteGuardUpdaters updaters;

  public ReactiveAccountService(ReactiveWriteGuardUpdaters updaters) {
    this.updaters = updaters;
  }

  public Mono<Account> deposit(String id, long amount) {
    return updaters.entities(Account.class).update(id, account -> {
      account.setBalance(account.getBalance() + amount); // pure: may run once per attempt
      return account;
    });
  }

  public Mono<Account> withdraw(String id, long amount) {
    return updaters.lockedEntities(Account.class).update(id, account -> {
      if (account.getBalance() < amount) {
        throw new InsufficientFundsException(id, account.getBalance(), amount);
      }
      account.setBalance(account.getBalance() - amount);
      return account;
    });
  }
}
