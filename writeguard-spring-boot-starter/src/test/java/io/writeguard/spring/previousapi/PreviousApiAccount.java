package io.writeguard.spring.previousapi;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.mapping.Document;

/** An entity as the starter's first documentation showed one. */
@Document("previous_api_accounts")
public class PreviousApiAccount {
  @Id private String id;
  @Version private Long version; // the field WriteGuard checks and raises
  private long balance;

  public PreviousApiAccount() {}

  public PreviousApiAccount(String id) {
    this.id = id;
  }

  public String getId() {
    return id;
  }

  public Long getVersion() {
    return version;
  }

  public long getBalance() {
    return balance;
  }

  public void setBalance(long balance) {
    this.balance = balance;
  }
}
