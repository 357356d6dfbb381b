package io.writeguard.counter;

import io.writeguard.WriteGuardException;
import java.util.Map;

/**
 * A combining decrement failed after draining some shards, and giving the drained amounts back
 * was not done. It names three kinds of amount, shard index to amount:
 * <ul>
 *   <li>{@link #strandedByShard()}: taken for certain and not returned; the counter is short by
 *       exactly these until they are added back by hand;
 *   <li>{@link #inDoubtByShard()}: takes whose outcome could not be learned (the server stopped
 *       answering); check the shard's {@code _ops} for the take before adding any back;
 *   <li>{@link #returningByShard()}: give-backs still being sent in the background (the
 *       caller's wait ended first); they return by themselves within their own budget, and a
 *       warning is logged if one does not. Do not add these back.
 * </ul>
 * The counter is never negative. Immutable and thread-safe.
 */
public class StrandedBalanceException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final transient Map<Integer, Long> strandedByShard;
  private final transient Map<Integer, Long> inDoubtByShard;
  private final transient Map<Integer, Long> returningByShard;

  public StrandedBalanceException(String counterId, Map<Integer, Long> strandedByShard,
      Throwable cause) {
    this(counterId, strandedByShard, Map.of(), Map.of(), cause);
  }

  public StrandedBalanceException(String counterId, Map<Integer, Long> strandedByShard,
      Map<Integer, Long> inDoubtByShard, Map<Integer, Long> returningByShard, Throwable cause) {
    super(message(counterId, strandedByShard, inDoubtByShard, returningByShard), cause);
    this.strandedByShard = Map.copyOf(strandedByShard);
    this.inDoubtByShard = Map.copyOf(inDoubtByShard);
    this.returningByShard = Map.copyOf(returningByShard);
  }

  private static String message(String counterId, Map<Integer, Long> stranded,
      Map<Integer, Long> inDoubt, Map<Integer, Long> returning) {
    StringBuilder m = new StringBuilder("counter '").append(counterId)
        .append("': a failed decrement could not give back what it drained");
    if (!stranded.isEmpty()) {
      m.append("; missing (shard -> amount) ").append(stranded)
          .append(": add these back to restore the total");
    }
    if (!inDoubt.isEmpty()) {
      m.append("; takes whose outcome is unknown (shard -> amount) ").append(inDoubt)
          .append(": add one back only if the shard's _ops records its take");
    }
    if (!returning.isEmpty()) {
      m.append("; still being given back in the background (shard -> amount) ")
          .append(returning).append(": do not add these back, they return by themselves unless"
              + " a warning says otherwise");
    }
    return m.toString();
  }

  /** Shard index to the amount that was drained for certain and not returned. */
  public Map<Integer, Long> strandedByShard() {
    return strandedByShard;
  }

  /** Shard index to amounts whose take may or may not have been applied. */
  public Map<Integer, Long> inDoubtByShard() {
    return inDoubtByShard;
  }

  /** Shard index to amounts still being given back in the background. */
  public Map<Integer, Long> returningByShard() {
    return returningByShard;
  }
}
