package io.writeguard.app.chaos;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.ne;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.internal.Deadline;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.version.VersionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;

/**
 * The counter workload: credits and debits of one balance document, {@code {balance, ledger:
 * [{op, amount}], version}}, where every applied operation leaves its id in the ledger in the
 * same write that moves the balance. So the checker can judge each acknowledged operation on
 * its own (present exactly once) and replay the ledger in order to see that the balance never
 * went below zero. A debit larger than the balance is refused ({@link Refused}, nothing
 * written). One implementation per strategy, each through the library's public API:
 * {@code atomic} one filtered {@code $inc}+{@code $push}; {@code optimistic} a
 * {@link VersionedUpdater}; {@code adaptive} an {@link AdaptiveUpdater}; {@code mongo-lock} and
 * {@code redis-lock} a lease lock and a {@link FencedWriter} (fenced only, as a lock's user
 * writes); {@code naive} find, change, replace by {@code _id}. Thread-safe.
 */
final class LedgerOps {
  static final long INITIAL_BALANCE = 20;
  private static final int MAX_FENCED_REJECTIONS = 3;

  /** A debit the balance cannot cover; nothing was written. */
  static final class Refused extends RuntimeException {
    Refused(String op, long amount) {
      super("debit " + op + " of " + (-amount) + " refused: the balance cannot cover it");
    }
  }

  /** The token of this thread's last fenced write attempt, for the history's detail. */
  static final ThreadLocal<Long> LAST_TOKEN = new ThreadLocal<>();

  private final String strategy;
  private final MongoCollection<Document> docs;
  private final LockService locks;
  private final VersionedUpdater updater;
  private final AdaptiveUpdater adaptive;
  private final FencedWriter fenced;
  private final ChaosSettings settings;

  LedgerOps(String strategy, MongoCollection<Document> docs, LockService locks,
      LockService localLocks, ChaosSettings settings) {
    this.strategy = strategy;
    this.docs = docs;
    this.locks = locks;
    this.settings = settings;
    this.updater = VersionedUpdater.builder(docs).strategyName(strategy).build();
    this.adaptive = AdaptiveUpdater.builder(updater, localLocks).lockWait(settings.lockWait())
        .build();
    this.fenced = FencedWriter.builder(docs)
        .fenceField(strategy.equals("redis-lock") ? "_fence_redis" : "_fence")
        .strategy(strategy).build();
  }

  /**
   * Applies {@code amount} (credit if positive) as operation {@code op} to document {@code id}.
   *
   * @return the fenced rejections met on the way (lock strategies)
   * @throws Refused when a debit exceeds the balance
   */
  int apply(Object id, String op, long amount) {
    switch (strategy) {
      case "atomic":
        atomic(id, op, amount);
        return 0;
      case "optimistic":
        versioned(id, op, amount, updater::updateOne);
        return 0;
      case "adaptive":
        versioned(id, op, amount, adaptive::updateOne);
        return 0;
      case "mongo-lock":
      case "redis-lock":
        return locked(id, op, amount);
      case "naive":
        naive(id, op, amount);
        return 0;
      default:
        throw new IllegalArgumentException("no counter strategy '" + strategy + "'");
    }
  }

  private void atomic(Object id, String op, long amount) {
    var filter = amount < 0 ? and(eq("_id", id), ne("ledger.op", op), gte("balance", -amount))
        : and(eq("_id", id), ne("ledger.op", op));
    long matched = Deadline.boundedWrite(docs).updateOne(filter, Updates.combine(Updates.inc("balance", amount),
        Updates.push("ledger", entry(op, amount)), Updates.inc(VersionPolicy.DEFAULT_FIELD, 1L)))
        .getMatchedCount();
    if (matched == 0) {
      throw new Refused(op, amount);
    }
  }

  private interface Update {
    Object run(Object id, Mutator mutator);
  }

  private void versioned(Object id, String op, long amount, Update update) {
    AtomicBoolean refused = new AtomicBoolean();
    update.run(id, current -> {
      Backends.runHook();
      Document next = change(current, op, amount);
      refused.set(next == null);
      return next == null ? Mutation.none()
          : Mutation.update(Updates.combine(Updates.set("balance", next.get("balance")),
              Updates.push("ledger", entry(op, amount))));
    });
    if (refused.get()) {
      throw new Refused(op, amount);
    }
  }

  private int locked(Object id, String op, long amount) {
    int rejections = 0;
    String key = "docs:" + id;
    while (true) {
      try (LockHandle lock = locks.acquire(key, settings.lockWait())) {
        LAST_TOKEN.set(lock.token());
        Document doc = fenced.claim(lock, id).orElseThrow();
        Backends.runHook();
        Document next = change(doc, op, amount);
        if (next == null) {
          throw new Refused(op, amount);
        }
        FencedWriter.Outcome outcome = fenced.replaceOne(lock, id, next);
        if (outcome != FencedWriter.Outcome.APPLIED) {
          // Not applied and not refused as stale: never acknowledge what was not written.
          throw new IllegalStateException("fenced replace of " + id + " for " + op + " was "
              + outcome + " (token " + lock.token() + ")");
        }
        return rejections;
      } catch (StaleLockException e) {
        rejections++; // our lease ran out and a newer holder wrote: nothing was written
        if (rejections >= MAX_FENCED_REJECTIONS) {
          throw e;
        }
      }
    }
  }

  private void naive(Object id, String op, long amount) {
    Document doc = docs.find(eq("_id", id)).first();
    Backends.runHook();
    Document next = change(doc, op, amount);
    if (next == null) {
      throw new Refused(op, amount);
    }
    docs.replaceOne(eq("_id", id), next); // the unguarded save: erases a write in between
  }

  /** The document with the entry applied, or null when the balance cannot cover a debit. */
  private static Document change(Document current, String op, long amount) {
    long balance = ((Number) current.get("balance")).longValue();
    if (balance + amount < 0) {
      return null;
    }
    Document next = new Document(current);
    List<Object> ledger = new ArrayList<>(current.getList("ledger", Object.class));
    ledger.add(entry(op, amount));
    next.put("ledger", ledger);
    next.put("balance", balance + amount);
    Object version = current.get(VersionPolicy.DEFAULT_FIELD);
    next.put(VersionPolicy.DEFAULT_FIELD, version instanceof Number n ? n.longValue() + 1 : 1L);
    return next;
  }

  private static Document entry(String op, long amount) {
    return new Document("op", op).append("amount", amount);
  }

  /** A fresh balance document. */
  static Document seed(Object id) {
    return new Document("_id", id).append("balance", INITIAL_BALANCE)
        .append("ledger", new ArrayList<>()).append(VersionPolicy.DEFAULT_FIELD, 0L);
  }
}
