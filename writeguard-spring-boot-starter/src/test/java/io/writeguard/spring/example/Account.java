package io.writeguard.spring.example;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.mapping.Document;

/**
 * An entity as a Spring Data user writes it, with its own {@code @Version}: {@code balance}
 * is changed optimistically, {@code settled} under a lease lock with fenced writes.
 */
@Document("accounts")
public class Account {
  @Id
  private String id;
  @Version
  private Long version;
  private long balance;
  private long settled;
  private String owner;

  public Account() {}

  public Account(String id, String owner) {
    this.id = id;
    this.owner = owner;
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

  public long getSettled() {
    return settled;
  }

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }
}
