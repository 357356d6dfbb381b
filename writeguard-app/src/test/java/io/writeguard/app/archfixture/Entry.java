package io.writeguard.app.archfixture;

import io.writeguard.app.archfixture.tool.Tool;
import picocli.CommandLine.Command;

/**
 * An entry point in the root package that names its subcommand in its annotation only, as
 * {@code Main} names {@code ChaosCommand}: a dependency the cycle rule must see.
 */
@Command(name = "entry", subcommands = Tool.class)
public final class Entry {
  private Entry() {}
}
