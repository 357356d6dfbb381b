package io.writeguard.spring.example;

import java.util.ArrayList;
import java.util.List;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.mapping.Document;

/**
 * An immutable entity: a Java record with Spring Data's {@code @Version Long}, mapped by Spring
 * Data through its canonical constructor. Every change returns a new record and keeps the
 * version it was read with (WriteGuard raises it); {@code log} names every operation applied,
 * so a test can tell a lost or doubled one.
 */
@Document("wallets")
public record Wallet(@Id String id, long balance, List<String> log, @Version Long version) {

  public Wallet {
    log = List.copyOf(log == null ? List.of() : log);
  }

  /** A new, empty wallet; Spring Data stamps version 0 on insert. */
  public static Wallet open(String id) {
    return new Wallet(id, 0, List.of(), null);
  }

  /** This wallet with {@code amount} added under {@code requestId}, same version. */
  public Wallet credit(long amount, String requestId) {
    List<String> next = new ArrayList<>(log);
    next.add(requestId);
    return new Wallet(id, balance + amount, next, version);
  }

  /** This wallet with another version, for the test that a change must not write it. */
  public Wallet withVersion(Long otherVersion) {
    return new Wallet(id, balance, log, otherVersion);
  }
}
