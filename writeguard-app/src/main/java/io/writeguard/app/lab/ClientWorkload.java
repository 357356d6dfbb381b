package io.writeguard.app.lab;

/**
 * The operations of one client, and its record of which ones the server acknowledged.
 * Used by that client's thread only; not thread-safe.
 */
public interface ClientWorkload<O> {

  /** The next operation to send. */
  O next();

  /** Records that {@code op}, returned by {@link #next}, was acknowledged by the server. */
  void acknowledged(O op);
}
