package com.example.bank;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.mapping.Document;

@Document("accounts")
public class Account {
  @Id private String id;
  @Version private Long version; // the field WriteGuard checks and raises
  private long balance;

  public Account() {}

  public Account(String id) {
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
