package io.writeguard.redis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One real {@code redis-server} (Debian's package, 7.0+) started by a test on 127.0.0.1, on a
 * free port, in a temp dir, without persistence ({@code --save '' --appendonly no}), for
 * cluster and Sentinel tests. {@link #kill()} is SIGKILL ({@link Process#destroyForcibly()} on
 * Unix); {@link #close()} kills it and deletes its dir. Admin commands go through
 * {@code redis-cli}. Tests skip (assumption) when the binary is missing; {@code .ci/run}
 * installs it.
 */
final class RedisProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final int port;
  private final Path dir;

  private RedisProcess(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** Skips the calling test unless {@code redis-server} and {@code redis-cli} are on the PATH. */
  static void assumeInstalled() {
    assumeTrue(onPath("redis-server") && onPath("redis-cli"),
        "redis-server/redis-cli not on the PATH: install Debian's redis-server package"
            + " (apt-get install -y redis-server; .ci/run does it) to run the cluster and Sentinel tests");
  }

  /**
   * Starts redis-server with {@code args} after the common ones, and waits until it answers PING.
   * A {@code --cluster-port} in {@code args} is replaced by a free port other than the server's.
   * A port probed free can be taken again before the server binds it (by this JVM's next probe,
   * or by another process): a server that could not bind is started again on new ports.
   */
  static RedisProcess start(String name, String... args) {
    for (int attempt = 1; ; attempt++) {
      int port = freePort();
      try {
        Path dir = Files.createTempDirectory("wg-redis-" + name + "-");
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
            "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no",
            "--logfile", dir.resolve("redis.log").toString()));
        command.addAll(withFreeClusterPort(List.of(args), port));
        return launch(command, port, dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start redis-server " + name, e);
      } catch (AssertionError e) {
        if (attempt == 3 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
          throw e;
        }
      }
    }
  }

  private static List<String> withFreeClusterPort(List<String> args, int serverPort) {
    List<String> out = new ArrayList<>(args);
    int at = out.indexOf("--cluster-port");
    if (at >= 0 && at + 1 < out.size()) {
      int clusterPort = freePort();
      while (clusterPort == serverPort) {
        clusterPort = freePort();
      }
      out.set(at + 1, Integer.toString(clusterPort));
    }
    return out;
  }

  /** Starts a Sentinel with this config (its port is chosen here) and waits until it answers. */
  static RedisProcess startSentinel(String... config) {
    int port = freePort();
    try {
      Path dir = Files.createTempDirectory("wg-sentinel-");
      List<String> lines = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + dir,
          "logfile " + dir.resolve("sentinel.log")));
      lines.addAll(List.of(config));
      Path conf = dir.resolve("sentinel.conf");
      Files.write(conf, lines, StandardCharsets.UTF_8);
      return launch(List.of("redis-server", conf.toString(), "--sentinel"), port, dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start redis sentinel", e);
    }
  }

  private static RedisProcess launch(List<String> command, int port, Path dir) throws IOException {
    Process process = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
    RedisProcess redis = new RedisProcess(process, port, dir);
    try {
      redis.awaitCli(START_TIMEOUT, out -> out.contains("PONG"), "PING");
    } catch (RuntimeException | AssertionError e) {
      redis.close();
      throw e;
    }
    return redis;
  }

  int port() {
    return port;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  String uri() {
    return "redis://" + address();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Runs {@code redis-cli -p port args...} and returns what it printed. */
  String cli(String... args) {
    List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
    command.addAll(List.of(args));
    return run(command, Duration.ofSeconds(30));
  }

  /** Polls {@link #cli} until its output passes {@code done}, failing after {@code timeout}. */
  String awaitCli(Duration timeout, Predicate<String> done, String... args) {
    long until = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < until) {
      last = cli(args);
      if (done.test(last)) {
        return last;
      }
      sleep(100);
    }
    throw new AssertionError("redis " + address() + ": '" + String.join(" ", args) + "' did not reach the"
        + " expected state within " + timeout + "; last answer: " + last + "; log: " + log());
  }

  /**
   * Makes this master go on without {@code replica}, so what it writes from now on is lost when
   * it dies: the worst case of asynchronous replication, forced rather than hoped for. The
   * master starts to require a password (connections already open stay authenticated; the
   * replica's next one is refused) and drops the replica's link; returns when the replica sees
   * the link down.
   */
  void cutOff(RedisProcess replica) {
    String password = "cut-off-" + port;
    cli("CONFIG", "SET", "requirepass", password);
    run(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port), "--no-auth-warning",
        "-a", password, "CLIENT", "KILL", "TYPE", "replica"), Duration.ofSeconds(30));
    replica.awaitCli(START_TIMEOUT, info -> info.contains("master_link_status:down"), "INFO", "replication");
  }

  /** SIGKILL: no shutdown, no last replication. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("redis-server " + address() + " did not die within 30 s of SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // a temp dir left behind is harmless
    }
  }

  private String log() {
    for (String name : List.of("redis.log", "sentinel.log", "stdout.log")) {
      Path file = dir.resolve(name);
      try {
        if (Files.exists(file)) {
          List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
          return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
      } catch (IOException e) {
        return "(unreadable: " + e + ")";
      }
    }
    return "(none)";
  }

  static String run(List<String> command, Duration timeout) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " did not finish within " + timeout);
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + command, e);
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static boolean onPath(String binary) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String entry : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(entry, binary))) {
        return true;
      }
    }
    return false;
  }
}
