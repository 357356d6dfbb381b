package io.writeguard.lock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Fencing tokens for the in-process lock services: one counter for all keys, so tokens keep
 * rising per key even after an idle key's entry is dropped and created again (a per-key counter
 * would restart at 1).
 *
 * <p>By default the counter starts at the wall-clock millisecond shifted left by 20 bits, so a
 * restarted process issues tokens above those of its previous run (unless that run issued more
 * than about a million tokens per millisecond on average): a document fenced with a token from
 * the previous run does not refuse every write of the next. Thread-safe.
 */
final class FencingTokens {
  private final AtomicLong last;

  FencingTokens(long first) {
    this.last = new AtomicLong(first - 1);
  }

  static long defaultFirst() {
    return System.currentTimeMillis() << 20;
  }

  long next() {
    return last.incrementAndGet();
  }
}
