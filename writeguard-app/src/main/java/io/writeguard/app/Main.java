package io.writeguard.app;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.LabCommand;
import io.writeguard.app.serve.ServeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code writeguard} command. Each subcommand lives in its own class. */
@Command(
    name = "writeguard",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Stops lost updates on MongoDB, and proves it with numbers.",
    subcommands = {
      CommandLine.HelpCommand.class,
      AuditCommand.class,
      MongoCommand.class,
      LabCommand.class,
      ServeCommand.class,
      TokenCommand.class,
    })
public final class Main implements Runnable {

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * Runs the command line and returns its exit status: 0 ok, 1 a check failed (lost updates,
   * problems left), 2 bad input or an unreachable server, 3 the lab's server went away mid-run,
   * 4 the lab's scenario cannot run on that server.
   */
  public static int run(String... args) {
    return commandLine().execute(args);
  }

  /** The command line with WriteGuard's exit codes: 2 for usage errors, 1 for failures. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    // One line naming the bad value, not a page of usage: picocli's message already names it.
    cl.setParameterExceptionHandler((e, args) -> {
      CommandLine bad = e.getCommandLine();
      bad.getErr().println("writeguard: " + e.getMessage()
          + " (see 'writeguard " + (bad == cl ? "" : bad.getCommandName() + " ") + "--help')");
      return 2;
    });
    cl.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof UsageException) {
        line.getErr().println("writeguard: " + e.getMessage());
        return 2;
      }
      line.getErr().println("writeguard: " + e);
      return 1;
    });
    return cl;
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"writeguard " + (v == null ? "dev" : v)};
    }
  }
}
