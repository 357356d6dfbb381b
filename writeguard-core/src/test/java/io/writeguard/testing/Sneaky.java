package io.writeguard.testing;

import java.io.IOException;

/**
 * A checked exception thrown where the compiler does not see it, as Kotlin code and Lombok's
 * {@code @SneakyThrows} do: the tests that check that every path running user code answers its
 * callers whatever that code throws.
 */
public final class Sneaky {
  private Sneaky() {}

  /** Throws {@code t} unchanged, without declaring it. */
  @SuppressWarnings("unchecked")
  public static <E extends Throwable> void sneaky(Throwable t) throws E {
    throw (E) t;
  }

  /** Throws {@code t} from an expression that the compiler takes to return a value. */
  public static <R> R sneakyThrow(Throwable t) {
    Sneaky.<RuntimeException>sneaky(t);
    throw new AssertionError("unreachable");
  }

  /** A fresh checked exception naming {@code where}, thrown by user code in a test. */
  public static IOException checked(String where) {
    return new IOException("checked exception thrown by " + where);
  }
}
