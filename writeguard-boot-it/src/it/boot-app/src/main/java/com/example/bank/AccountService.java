package com.example.bank;

import io.writeguard.spring.WriteGuardUpdaters;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Service;

@Service
public class AccountService {
  private final WriteGuardUpdaters updaters;
  private final MongoTemplate template;

  public AccountService(WriteGuardUpdaters updaters, MongoTemplate template) {
    this.updaters = updaters;
    this.template = template;
  }

  public Account open(String id) {
    return template.insert(new Account(id));
  }

  public Account find(String id) {
    return template.findById(id, Account.class);
  }

  /** Optimistic: read, change, write if the version did not move, else again. */
  public Account deposit(String id, long amount) {
    return updaters.entities(Account.class).update(id, account -> {
      account.setBalance(account.getBalance() + amount); // pure: may run once per attempt
      return account;
    });
  }

  /** Under the account's lock (writeguard.lock.default-service), then written as a deposit is. */
  public Account withdraw(String id, long amount) {
    return updaters.lockedEntities(Account.class).update(id, account -> {
      if (account.getBalance() < amount) {
        throw new InsufficientFundsException(id, account.getBalance(), amount);
      }
      account.setBalance(account.getBalance() - amount);
      return account;
    });
  }
}
