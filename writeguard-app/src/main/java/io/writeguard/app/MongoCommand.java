package io.writeguard.app;

import io.writeguard.app.cli.UsageException;
import io.writeguard.embedded.EmbeddedMongo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code writeguard mongo [--port N] [--data DIR]}: runs the embedded MongoDB (snapshot reads;
 * in memory, or kept in {@code DIR} so that it survives a kill and a restart) on 127.0.0.1,
 * prints its connection string as the only line on stdout, and serves until it gets SIGTERM or
 * SIGINT. Several processes (the lab, tests, a shell) can then share one database by
 * connecting to that URI.
 *
 * <p>Why it handles signals itself: a JVM ended by a signal runs its shutdown hooks and then
 * exits with 128 + the signal number (143 for SIGTERM), which scripts read as a failure. So the
 * command installs handlers for TERM and INT that only wake the main thread, which stops the
 * server and returns 0. A shutdown hook still stops the server if the JVM ends some other way
 * (SIGHUP, {@code System.exit} elsewhere, or a platform where a handler cannot be installed; then
 * the exit status is the JVM's usual one). The handlers use {@code sun.misc.Signal} from the
 * {@code jdk.unsupported} module, which JEP 260 keeps open for exactly this; javac warns about it.
 *
 * <p>Exit status: 0 after a clean stop, 2 for a bad or unusable port or data directory (a
 * {@link UsageException}: one line on stderr naming the port or the path). Not thread-safe: picocli makes one instance per
 * invocation.
 */
@Command(
    name = "mongo",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Runs an embedded MongoDB (snapshot reads; in memory, or in --data DIR) on 127.0.0.1"
          + " until stopped.",
      "Prints its URI (mongodb://127.0.0.1:PORT) on stdout; SIGTERM or Ctrl-C stops it.",
      "Reports MongoDB 5.0 (wire version 13), so mongosh and pymongo connect; it has no"
          + " sessions, so no transactions."
    })
public final class MongoCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "Port to listen on, 0 for a free one (default: ${DEFAULT-VALUE}).")
  private int port = 0;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Keep the data in DIR (created if missing): every acknowledged write is"
          + " committed before its reply, so it survives a killed process and a restart on the"
          + " same DIR. Default: in memory.")
  private java.nio.file.Path data;

  @Override
  public Integer call() {
    if (port < 0 || port > 65535) {
      throw new UsageException("--port must be between 0 and 65535, was " + port);
    }
    EmbeddedMongo mongo;
    try {
      mongo = data == null ? EmbeddedMongo.start(port) : EmbeddedMongo.start(port, data);
    } catch (IllegalStateException | IllegalArgumentException e) { // names the port or path
      throw new UsageException(e.getMessage(), e);
    }
    Thread hook = new Thread(mongo::close, "writeguard-mongo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    CountDownLatch stopRequested = new CountDownLatch(1);
    handleStopSignals(stopRequested);

    PrintWriter out = spec.commandLine().getOut();
    out.println(mongo.uri());
    out.flush();
    try {
      stopRequested.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // an interrupt is a stop request too
    }
    mongo.close();
    removeHook(hook);
    PrintWriter err = spec.commandLine().getErr();
    err.println("writeguard mongo: stopped " + mongo.uri());
    err.flush();
    return 0;
  }

  /** Installs TERM and INT handlers that count down {@code stop}. */
  private static void handleStopSignals(CountDownLatch stop) {
    for (String name : List.of("TERM", "INT")) {
      try {
        Signal.handle(new Signal(name), signal -> stop.countDown());
      } catch (IllegalArgumentException e) {
        // e.g. the JVM runs with -Xrs or the signal is ignored; the shutdown hook covers it.
      }
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook's close() is idempotent.
    }
  }
}
