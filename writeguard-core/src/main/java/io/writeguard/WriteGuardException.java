package io.writeguard;

/**
 * Root of every exception WriteGuard throws to its callers.
 *
 * <p>Expected outcomes inside a retry loop ("version moved", "lock busy") are values, not
 * exceptions; what reaches the caller is one of the subclasses of this type, and its message
 * names the key, what ran out and the last cause. Unchecked, like the MongoDB driver's own
 * {@code MongoException}. Instances are immutable and thread-safe.
 */
public class WriteGuardException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WriteGuardException(String message) {
    super(message);
  }

  public WriteGuardException(String message, Throwable cause) {
    super(message, cause);
  }
}
