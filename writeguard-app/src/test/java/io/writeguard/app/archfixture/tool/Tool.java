package io.writeguard.app.archfixture.tool;

import io.writeguard.app.archfixture.Entry;
import picocli.CommandLine.Command;

/** A subcommand that starts its entry point in a child JVM by class, as chaos once did. */
@Command(name = "tool")
public final class Tool {
  private Tool() {}

  public static String childMainClass() {
    return Entry.class.getName();
  }
}
