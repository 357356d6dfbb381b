package io.writeguard.counter;

import io.writeguard.Ticker;
import io.writeguard.update.WriteOutcomeUnknownException;
import io.writeguard.update.WriteOutcomes;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Sends a counter write that carries no operation id ({@code $inc} of an increment, a
 * single-shard take), so it must be sent exactly once: a reply lost after sending becomes a
 * {@link WriteOutcomeUnknownException}, never a second {@code $inc}. Other errors pass through
 * unchanged. Not API; stateless.
 */
final class UnrepeatableWrite {
  private UnrepeatableWrite() {}

  /**
   * @param documentId the {@code _id} written (the counter's, or one shard document's)
   * @param what the write, named in the error, e.g. {@code "decrement by 5 of shard 2"}
   */
  static <T> T send(String collection, Object documentId, String what, Ticker ticker,
      Supplier<T> write) {
    long start = ticker.nanoTime();
    try {
      return write.get();
    } catch (RuntimeException e) {
      if (WriteOutcomes.isOutcomeUnknown(e)) {
        throw new WriteOutcomeUnknownException(collection, documentId, 1,
            Duration.ofNanos(ticker.nanoTime() - start), what, e);
      }
      throw e;
    }
  }
}
