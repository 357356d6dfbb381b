package io.writeguard.app.archfixture.lab.alpha;

import io.writeguard.app.archfixture.lab.Runner;
import io.writeguard.app.archfixture.lab.api.Contract;
import io.writeguard.app.archfixture.lab.beta.Beta;

/** A scenario that uses another scenario and the runner besides the API. */
public final class Alpha implements Contract {
  public int twice() {
    return Beta.docs() + Runner.clients();
  }
}
