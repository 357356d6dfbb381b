package io.writeguard.app.archfixture.lab.beta;

import io.writeguard.app.archfixture.lab.api.Contract;

/** A scenario that keeps to the API. */
public final class Beta implements Contract {
  public static int docs() {
    return 4;
  }
}
