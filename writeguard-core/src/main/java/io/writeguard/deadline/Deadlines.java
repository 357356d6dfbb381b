package io.writeguard.deadline;

import io.writeguard.internal.Checks;
import io.writeguard.internal.Deadline;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A caller's deadline for everything the library does on the calling thread: a request
 * handler, a job step. Every updater, lock, counter, idempotency and transaction call made
 * inside {@link #within} runs each MongoDB operation and Redis command with the time left
 * (a write also gets {@link #OUTCOME_GRACE} to learn its outcome) and cuts a lock wait to it,
 * so the caller is answered within its budget plus the grace, stalled servers included. Each
 * component's own budget (a retry policy's deadline, a lock wait) still applies: the earlier
 * one wins. Nested calls can shorten a deadline, never lengthen it.
 *
 * <p>Writes that record work already done (an idempotent action's outcome, the release of a
 * failed action's claim, a counter's give-back, a MongoDB lock's release) are not cut by the
 * deadline: each has a budget of its own (10 s), the caller waits for it at most twice the
 * grace past its deadline (past the write's start, when the work it records ended after the
 * deadline), and one not done by then goes on in the background; the caller is told so.
 *
 * <p>When the deadline runs out during a write, the caller gets the same outcome-unknown error
 * as for a lost reply ({@code WriteOutcomeUnknownException} from an updater); during a read or
 * a lock wait, the same typed timeout as before ({@code RetriesExhaustedException},
 * {@code LockTimeoutException}). Stateless; the deadline is confined to the calling thread.
 */
public final class Deadlines {
  /** What a write may run past the deadline so its outcome can be learned: 250 ms. */
  public static final Duration OUTCOME_GRACE = Deadline.OUTCOME_GRACE;

  private Deadlines() {}

  /** Runs {@code work} with a deadline {@code budget} from now; returns its result. */
  public static <T> T within(Duration budget, Supplier<T> work) {
    Checks.positive("budget", budget);
    Objects.requireNonNull(work, "work");
    return Deadline.within(Deadline.after(budget), work);
  }

  /** {@link #within(Duration, Supplier)} for work without a result. */
  public static void within(Duration budget, Runnable work) {
    Objects.requireNonNull(work, "work");
    within(budget, () -> {
      work.run();
      return null;
    });
  }

  /** The time left before the calling thread's deadline, or empty when none is set. */
  public static java.util.Optional<Duration> left() {
    Deadline current = Deadline.current();
    return current == null ? java.util.Optional.empty() : java.util.Optional.of(current.left());
  }
}
