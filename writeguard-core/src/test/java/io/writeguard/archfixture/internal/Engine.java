package io.writeguard.archfixture.internal;

import io.writeguard.archfixture.lock.Handle;

/** An internal class that speaks a lock type: an arrow from the ground floor upward. */
public final class Engine {
  public Handle take() {
    return new Handle();
  }
}
