package io.writeguard.app.archfixture.lab.api;

import io.writeguard.app.archfixture.lab.Runner;

/** A lab API that reaches back into the runner. */
public interface Contract {
  default int clients() {
    return Runner.clients();
  }
}
