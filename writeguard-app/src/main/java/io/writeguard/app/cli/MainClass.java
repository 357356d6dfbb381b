package io.writeguard.app.cli;

/**
 * The class that runs the {@code writeguard} command line, by name, for code that starts
 * {@code writeguard mongo} or {@code writeguard serve} in a child JVM (chaos). A name rather
 * than {@code Main.class}: {@code Main} lists every command, so a command that pointed back at
 * it would close a package cycle. {@code MainTest} checks that the name is {@code Main}'s.
 * Stateless.
 */
public final class MainClass {
  /** {@code io.writeguard.app.Main}. */
  public static final String NAME = "io.writeguard.app.Main";

  private MainClass() {}
}
