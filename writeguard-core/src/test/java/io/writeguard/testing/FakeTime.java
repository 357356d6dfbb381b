package io.writeguard.testing;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hand-driven clock for tests: {@link #ticker()} reads it and {@link #sleeper()} advances it
 * instead of sleeping, recording every sleep so tests can assert on backoff.
 */
public final class FakeTime {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  public Ticker ticker() {
    return nanos::get;
  }

  public Sleeper sleeper() {
    return duration -> {
      sleeps.add(duration);
      nanos.addAndGet(duration.toNanos());
    };
  }

  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  /** Every duration passed to the sleeper, in order. */
  public List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }
}
