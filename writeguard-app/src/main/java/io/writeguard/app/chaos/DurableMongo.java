package io.writeguard.app.chaos;

import com.mongodb.ConnectionString;
import io.writeguard.app.chaos.Processes.ChildJvm;
import io.writeguard.app.cli.MainClass;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code mongo-kill} fault's server: {@code writeguard mongo --data DIR} in a child JVM,
 * killed with SIGKILL and started again on the same port and the same directory, so that
 * "nothing acknowledged is lost" is checked across a real crash of the database. The other
 * faults keep the memory-only server; this one gets its own. Not thread-safe.
 */
final class DurableMongo implements AutoCloseable {
  private final Path dir;
  private final Path data;
  private ChildJvm process;
  private int port;
  private int starts;

  DurableMongo(Path dir) {
    this.dir = dir;
    this.data = dir.resolve("mongo-data");
  }

  /** Starts it on a free port; returns its URI. */
  String start() throws InterruptedException {
    return startOn(0);
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed that was not already. */
  void kill() {
    Processes.signal(process.pid(), "KILL");
    process.process().onExit().orTimeout(10, TimeUnit.SECONDS).join();
  }

  /** Starts it again on the same port and data; retries while the port lingers. */
  String restart() throws InterruptedException {
    return Processes.onTheSamePort(() -> startOn(port));
  }

  private String startOn(int wanted) throws InterruptedException {
    starts++;
    process = ChildJvm.start("mongo-data-" + starts, dir, MainClass.NAME,
        List.of("mongo", "--port", Integer.toString(wanted), "--data", data.toString()));
    String uri;
    try {
      uri = process.await(l -> l.startsWith("mongodb://"), ChildJvm.READY_WITHIN,
          new ArrayList<>());
    } catch (IllegalStateException e) {
      process.close();
      throw e;
    }
    String hostPort = new ConnectionString(uri).getHosts().get(0);
    port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    return uri;
  }

  @Override
  public void close() {
    if (process != null) {
      process.process().destroy(); // SIGTERM: a clean stop
      try {
        process.process().waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process.close();
    }
  }
}
