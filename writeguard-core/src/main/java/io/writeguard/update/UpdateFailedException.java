package io.writeguard.update;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/**
 * A versioned update ended without writing. The subclasses say why; this class itself is used
 * for server errors that no subclass covers and that are not worth retrying (the cause is the
 * driver's exception). Every message names the collection, the key, the attempts and the time
 * spent. Immutable and thread-safe.
 */
public class UpdateFailedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String collection;
  private final transient Object key;
  private final int attempts;
  private final Duration elapsed;

  public UpdateFailedException(
      String collection, Object key, int attempts, Duration elapsed, String what,
      Throwable cause) {
    super("update of " + collection + " _id=" + key + " " + what + " (" + attempts
        + (attempts == 1 ? " attempt, " : " attempts, ") + elapsed.toMillis() + "ms)"
        + (cause == null ? "" : "; cause: " + cause), cause);
    this.collection = collection;
    this.key = key;
    this.attempts = attempts;
    this.elapsed = elapsed;
  }

  /** The collection written to. */
  public String collection() {
    return collection;
  }

  /** The document's {@code _id}. */
  public Object key() {
    return key;
  }

  /** Attempts made, the failing one included. */
  public int attempts() {
    return attempts;
  }

  /** Time from the start of the call until it failed. */
  public Duration elapsed() {
    return elapsed;
  }
}
