package io.writeguard.app.archfixture.a;

import io.writeguard.app.archfixture.b.B;

/** Uses {@link B}, which uses this class back: a package cycle. */
public final class A {
  private A() {}

  public static String partner() {
    return B.class.getName();
  }
}
