package io.writeguard.adaptive;

/** How the adaptive strategy sends one key's next update. Immutable and thread-safe (an enum). */
public enum Route {
  /** Versioned read-change-write with retries; no lock. */
  OPTIMISTIC,
  /** The same versioned update, but only while holding the key's lock. */
  LOCKED
}
