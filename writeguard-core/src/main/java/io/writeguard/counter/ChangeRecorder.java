package io.writeguard.counter;

import org.bson.conversions.Bson;

/**
 * An update the caller adds to every write one counter operation makes, so that something of
 * its own (an operation id on a ledger, an audit field) changes in the <em>same atomic
 * write</em> as the balance: whatever a reader finds recorded was applied, and nothing applied
 * goes unrecorded. For example, a per-operation ledger:
 *
 * <pre>{@code
 * counter.increment("acct-7", 30,
 *     change -> Updates.push("ledger", new Document("op", opId).append("change", change)));
 * }</pre>
 *
 * <p>{@link #update} is called once per write, before it is sent, with the signed amount that
 * write changes its document's balance by: one call for an increment or a single-shard take;
 * with {@link CounterLayout#FIELDS} one for a combined take of several shards (the whole
 * amount); with {@link CounterLayout#DOCUMENTS} one per shard a drain takes from and, if the
 * decrement is refused or fails, one per amount given back ({@code +}), so the changes recorded
 * for one operation always add up to what it did to the total. A drain write re-sent after a
 * lost reply carries the same update and still applies once.
 *
 * <p>The update must use operators and must not write a field the counter writes (its value
 * field or shard fields, the version field, {@code _id}, {@code counter}, {@code shard},
 * {@code _ops}); the counter refuses it with {@link IllegalArgumentException} before sending
 * anything. Implementations are called on the thread of the counter operation and must be
 * safe for that; a stateless lambda is.
 */
@FunctionalInterface
public interface ChangeRecorder {
  /** Records nothing. */
  ChangeRecorder NONE = change -> null;

  /**
   * The update to send with a write that changes a balance by {@code change} (never 0), or
   * null for none.
   */
  Bson update(long change);
}
