package io.writeguard.app.archfixture.b;

import io.writeguard.app.archfixture.a.A;

/** Uses {@link A}, which uses this class back: a package cycle. */
public final class B {
  private B() {}

  public static String partner() {
    return A.partner();
  }
}
