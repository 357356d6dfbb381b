package io.writeguard.archfixture.lock;

import io.writeguard.archfixture.update.Documents;

/** A lock handle that reaches up into the update layer: one half of a cycle. */
public final class Handle {
  public Documents documents() {
    return new Documents();
  }
}
