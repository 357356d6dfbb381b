package io.writeguard.spring.example;

import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.push;

import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.spring.EntityUpdater;
import io.writeguard.spring.LeaseLocked;
import io.writeguard.spring.WriteGuardUpdaters;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Service;

/**
 * The record entity's service: deposits are optimistic read-modify-writes that return a new
 * {@link Wallet}; withdrawals run under the lease lock of the wallet, check the funds on the
 * record the fenced claim read, and write fenced with the injected token.
 *
 * <p>Why a withdrawal writes {@code $inc}/{@code $push} and not the whole record: deposits do
 * not take the lock, so one may land between the claim and the write; the operators add to it
 * instead of overwriting it. The lock is what keeps two withdrawals from both passing the funds
 * check on one balance (deposits only raise it, so the check stays true until the write).
 */
@Service
public class WalletService {
  private final EntityUpdater<Wallet> wallets;
  private final FencedWriter fenced;
  private final MongoTemplate template;

  public WalletService(WriteGuardUpdaters updaters, MongoTemplate template) {
    this.wallets = updaters.entities(Wallet.class);
    this.fenced = updaters.fencedWriter(Wallet.class);
    this.template = template;
  }

  /** Adds {@code amount} optimistically; retried on conflict; returns the wallet as written. */
  public Wallet deposit(String id, long amount, String requestId) {
    return wallets.update(id, wallet -> wallet.credit(amount, requestId));
  }

  /** Any change of the record, for the tests of the version rule. */
  public Wallet change(String id, UnaryOperator<Wallet> change) {
    return wallets.update(id, change);
  }

  /**
   * Takes {@code amount} out if the wallet holds it, under the wallet's MongoDB lease lock:
   * returns the holder's fencing token when paid, empty when the funds were short (the claim
   * still raised the fence and the version). The handle comes in as {@code lock}; callers pass
   * null.
   */
  @LeaseLocked(key = "'wallet:' + #id", waitTimeout = "60s")
  public OptionalLong withdraw(String id, long amount, String requestId, LockHandle lock) {
    Wallet current = template.getConverter()
        .read(Wallet.class, fenced.claim(lock, id).orElseThrow());
    if (current.balance() < amount) {
      return OptionalLong.empty();
    }
    fenced.updateOne(lock, id, combine(inc("balance", -amount), push("log", requestId)));
    return OptionalLong.of(lock.token());
  }
}
