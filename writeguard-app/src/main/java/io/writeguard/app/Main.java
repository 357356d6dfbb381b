package io.writeguard.app;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.LabCommand;
import io.writeguard.app.serve.ServeCommand;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code writeguard} command. Each subcommand lives in its own class. */
@Command(
    name = "writeguard",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Stops lost updates on MongoDB, and proves it with numbers.",
    subcommands = {
      CommandLine.HelpCommand.class,
      AuditCommand.class,
      io.writeguard.app.chaos.ChaosCommand.class,
      MongoCommand.class,
      LabCommand.class,
      ServeCommand.class,
      TokenCommand.class,
    })
public final class Main implements Callable<Integer> {
  @Spec CommandSpec spec;

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

  /** No command given: that is a usage error, so the help goes to stderr and the status is 2. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  /** The POM's version, written into {@code version.properties} by the build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      return new String[] {"writeguard " + version()};
    }

    static String version() throws IOException {
      Properties props = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in == null) {
          throw new IOException("version.properties is missing from the classpath: a broken build");
        }
        props.load(in);
      }
      return props.getProperty("version");
    }
  }
}
