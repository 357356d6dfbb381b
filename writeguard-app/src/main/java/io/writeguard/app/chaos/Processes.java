package io.writeguard.app.chaos;

import io.writeguard.embedded.EmbeddedRedis;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real processes of a chaos run and the signals sent to them: child JVMs started with this
 * process's own class path ({@code java -cp <jar or test classpath> <main> ...}), and the
 * embedded Redis, a redis-server child. Signals go through {@code kill -s} (STOP and CONT have
 * no Java API); {@link Process#destroy()} is SIGTERM and {@link Process#destroyForcibly()}
 * SIGKILL on Unix. Not thread-safe: the coordinator's main thread drives it.
 */
final class Processes {
  private Processes() {}

  /** A child JVM whose stdout lines are queued for the coordinator. */
  static final class ChildJvm implements AutoCloseable {
    /** An environment variable: the class path of the child JVMs, if not this process's. */
    static final String CHILD_CLASSPATH = "WRITEGUARD_CHAOS_CHILD_CLASSPATH";
    /** How long a child (MongoDB, serve, the holder) may take to print what it is waited for. */
    static final Duration READY_WITHIN = Duration.ofSeconds(120);

    private final Process process;
    private final String name;
    private final File stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process, String name, File stderr) {
      this.process = process;
      this.name = name;
      this.stderr = stderr;
      Thread reader = new Thread(this::readStdout, "chaos-stdout-" + name);
      reader.setDaemon(true);
      reader.start();
    }

    /**
     * Starts {@code java -cp <our class path> mainClass args...}; the class path of
     * {@value #CHILD_CLASSPATH} instead when that is set, to measure another build's serve and
     * MongoDB under this run's harness (docs/chaos.md).
     */
    static ChildJvm start(String name, Path dir, String mainClass, List<String> args) {
      String other = System.getenv(CHILD_CLASSPATH);
      String classPath = other == null || other.isBlank()
          ? System.getProperty("java.class.path") : other;
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Dlogback.configurationFile=logback.xml",
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", // quicker start, less CPU on a busy box
          "-cp", classPath, mainClass));
      command.addAll(args);
      File stderr = dir.resolve(name + ".stderr").toFile();
      try {
        return new ChildJvm(new ProcessBuilder(command).redirectError(stderr).start(), name, stderr);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start child JVM " + name, e);
      }
    }

    private void readStdout() {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the child is gone
      }
    }

    /**
     * The next stdout line matching {@code wanted}; other lines go to {@code others}.
     *
     * @throws IllegalStateException naming the child and its stderr when none comes in time
     */
    String await(Predicate<String> wanted, Duration timeout, List<String> others)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        long left = deadline - System.nanoTime();
        String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException("child " + name + " gave no expected line within "
              + timeout.toSeconds() + " s (alive: " + process.isAlive() + "); stderr: "
              + tail());
        }
        if (wanted.test(line)) {
          return line;
        }
        others.add(line);
      }
    }

    /** Every line written so far. */
    List<String> drain() {
      List<String> out = new ArrayList<>();
      lines.drainTo(out);
      return out;
    }

    long pid() {
      return process.pid();
    }

    Process process() {
      return process;
    }

    /** The last 2000 characters of its stderr. */
    String tail() {
      try {
        String text = Files.readString(stderr.toPath());
        return text.length() <= 2000 ? text : text.substring(text.length() - 2000);
      } catch (IOException e) {
        return "(unreadable: " + e + ")";
      }
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        try {
          signal(process.pid(), "CONT"); // never leave a stopped process behind
        } catch (IllegalStateException e) {
          // it ended in between
        }
        process.destroyForcibly();
      }
    }
  }

  /** A server's start on the port a killed one had, as {@code start} throws when it fails. */
  interface Start<T> {
    T start() throws InterruptedException;
  }

  /**
   * Runs {@code start} until it does not throw {@link IllegalStateException}, up to 20 times
   * 250 ms apart: the port of a server just killed may linger for a moment. Rethrows the last.
   */
  static <T> T onTheSamePort(Start<T> start) throws InterruptedException {
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      try {
        return start.start();
      } catch (IllegalStateException e) {
        last = e;
        Thread.sleep(250);
      }
    }
    throw last;
  }

  /** Sends {@code signal} (STOP, CONT, TERM, KILL) to {@code pid} with {@code kill -s}. */
  static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
          .redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        throw new IllegalStateException("kill -s " + signal + " " + pid + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -s " + signal + " " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending " + signal + " to " + pid, e);
    }
  }

  /**
   * The embedded Redis (a redis-server child of this JVM), which can be killed with SIGKILL and
   * started again on the same port. Persistence is off, so a restart loses every key, the
   * fencing-token counter included: that is the fault.
   */
  static final class RedisProcess implements AutoCloseable {
    private final List<EmbeddedRedis> servers = new ArrayList<>();
    private final int port;
    private long pid;

    RedisProcess() {
      Set<Long> before = redisChildren();
      EmbeddedRedis first = EmbeddedRedis.start();
      servers.add(first);
      this.port = first.port();
      this.pid = newChild(before);
    }

    int port() {
      return port;
    }

    /** Kills redis-server with SIGKILL (no shutdown, no save). */
    void kill() {
      signal(pid, "KILL");
      ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join());
    }

    /** Starts redis-server again on the same port. */
    void restart() throws InterruptedException {
      onTheSamePort(() -> {
        Set<Long> before = redisChildren();
        servers.add(EmbeddedRedis.start(port));
        pid = newChild(before);
        return null;
      });
    }

    /**
     * redis-server rewrites its command line (its process title), so the child is found as
     * the redis child that was not there before the start.
     */
    private static long newChild(Set<Long> before) {
      Set<Long> after = redisChildren();
      after.removeAll(before);
      if (after.size() != 1) {
        throw new IllegalStateException("cannot tell the new redis-server child: " + after);
      }
      return after.iterator().next();
    }

    private static Set<Long> redisChildren() {
      Set<Long> pids = new HashSet<>();
      ProcessHandle.current().children().filter(ProcessHandle::isAlive)
          .filter(p -> p.info().command().map(c -> c.contains("redis")).orElse(false))
          .forEach(p -> pids.add(p.pid()));
      return pids;
    }

    @Override
    public void close() {
      for (EmbeddedRedis server : servers) {
        try {
          server.close();
        } catch (RuntimeException e) {
          // the killed one is already gone
        }
      }
    }
  }
}
