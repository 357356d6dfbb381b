package io.writeguard.update;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.util.ArrayList;
import java.util.List;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.codecs.pojo.PojoCodecProvider;
import org.bson.codecs.pojo.annotations.BsonId;

/** The typed document classes of the typed-layer tests: a record and a POJO. */
public final class TypedAccounts {
  private TypedAccounts() {}

  /** A record whose version is a nullable {@code Long}. */
  public record Account(@BsonId String id, long balance, List<String> log, Long version) {
    /** This account with {@code amount} added and {@code entry} logged; version kept. */
    public Account deposit(long amount, String entry) {
      List<String> next = new ArrayList<>(log == null ? List.of() : log);
      next.add(entry);
      return new Account(id, balance + amount, next, version);
    }
  }

  /** A mutable POJO with a {@code Long version}. */
  public static final class Wallet {
    private String id;
    private long balance;
    private List<String> log = new ArrayList<>();
    private Long version;

    public Wallet() {}

    public Wallet(String id, long balance) {
      this.id = id;
      this.balance = balance;
    }

    @BsonId
    public String getId() {
      return id;
    }

    @BsonId
    public void setId(String id) {
      this.id = id;
    }

    public long getBalance() {
      return balance;
    }

    public void setBalance(long balance) {
      this.balance = balance;
    }

    public List<String> getLog() {
      return log;
    }

    public void setLog(List<String> log) {
      this.log = log;
    }

    public Long getVersion() {
      return version;
    }

    public void setVersion(Long version) {
      this.version = version;
    }
  }

  /** The registry a user builds for POJOs and records: the driver's defaults plus automatic POJOs. */
  public static CodecRegistry registry() {
    return CodecRegistries.fromRegistries(MongoClientSettings.getDefaultCodecRegistry(),
        CodecRegistries.fromProviders(PojoCodecProvider.builder().automatic(true).build()));
  }

  public static MongoCollection<Account> accounts(MongoDatabase db) {
    return db.getCollection("accounts", Account.class).withCodecRegistry(registry());
  }

  public static MongoCollection<Wallet> wallets(MongoDatabase db) {
    return db.getCollection("wallets", Wallet.class).withCodecRegistry(registry());
  }
}
