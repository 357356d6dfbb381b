package io.writeguard.archfixture.update;

import io.writeguard.archfixture.lock.Handle;

/** Update-layer documents that use a lock handle: the other half of the cycle. */
public final class Documents {
  public Handle lock() {
    return new Handle();
  }
}
