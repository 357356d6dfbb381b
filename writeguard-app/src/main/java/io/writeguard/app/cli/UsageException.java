package io.writeguard.app.cli;

/**
 * Bad input found after picocli parsed the line: a malformed URI, an unreachable server, a
 * value out of range. {@link io.writeguard.app.Main} prints its message as one line and exits
 * with status 2, having written nothing.
 */
public final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }

  public UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
