package io.writeguard.app.lab;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.lab.LabRunner.LabAbortedException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * The child JVMs of {@code writeguard lab --processes N}: N {@link LabWorker}s started from this
 * JVM's class path, each connected to the servers this process opened (the embedded ones
 * included: they listen on a local port), each running its share of the clients. One JSON line
 * per request on a child's stdin, one per reply on its stdout; its stderr goes to ours. The same
 * shape as the bench's {@code --processes} (a line protocol over the child's pipes), written for
 * the lab's requests.
 *
 * <p>A measured round is two requests per child: {@code run} (its clients run, it answers its
 * {@link Part}), and once every child has answered, {@code verify} (it reads the documents and
 * answers how many of its own acknowledged operations they hold). The totals are sums:
 * acknowledged and visible over all processes, so lost = acknowledged - visible exactly as in one
 * process. Not thread-safe: one round at a time.
 */
public final class LabProcesses implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Each child's heap: the clients' histograms and acknowledged codes, a few MB. */
  private static final String CHILD_HEAP = "-Xmx256m";

  private final List<Child> children;
  private final int clients;

  private LabProcesses(List<Child> children, int clients) {
    this.children = children;
    this.clients = clients;
  }

  /**
   * Starts {@code processes} children for {@code clients} clients on the servers of
   * {@code mongoUri} and {@code redisUri} (null when no strategy needs Redis).
   */
  public static LabProcesses start(int processes, int clients, String mongoUri, String redisUri) {
    if (processes < 1 || processes > clients) {
      throw new IllegalArgumentException("processes must be between 1 and " + clients
          + " (the clients), was " + processes);
    }
    List<Child> started = new ArrayList<>();
    try {
      for (int p = 0; p < processes; p++) {
        started.add(Child.start(p, mongoUri, redisUri));
      }
    } catch (RuntimeException e) {
      started.forEach(Child::close);
      throw e;
    }
    return new LabProcesses(List.copyOf(started), clients);
  }

  public int size() {
    return children.size();
  }

  /** The first client of process {@code p}: the clients are dealt out in contiguous ranges. */
  static int firstClient(int p, int processes, int clients) {
    return (int) ((long) p * clients / processes);
  }

  /**
   * Runs one round of {@code request} (scenario, strategy, collection, budget) in every child,
   * each with its share of the clients, and returns their parts once all have answered; with
   * {@code verify} also counts, after every child stopped writing, what the documents hold.
   *
   * @throws LabAbortedException when a child failed, exited or did not answer in {@code patience}
   */
  List<Part> round(Map<String, Object> request, boolean verify, Duration patience) {
    int n = children.size();
    List<CompletableFuture<Map<String, Object>>> runs = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      Map<String, Object> r = new LinkedHashMap<>(request);
      r.put("cmd", "run");
      r.put("verify", verify);
      r.put("clients", clients);
      r.put("first", firstClient(p, n, clients));
      r.put("count", firstClient(p + 1, n, clients) - firstClient(p, n, clients));
      runs.add(children.get(p).ask(r));
    }
    List<Map<String, Object>> replies = await(runs, patience);
    if (!verify) {
      return replies.stream().map(Part::fromJson).toList();
    }
    List<CompletableFuture<Map<String, Object>>> checks = new ArrayList<>();
    for (Child c : children) {
      checks.add(c.ask(Map.of("cmd", "verify")));
    }
    List<Map<String, Object>> counted = await(checks, patience);
    List<Part> parts = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      parts.add(Part.fromJson(replies.get(p)).withCounts(counted.get(p)));
    }
    return parts;
  }

  private List<Map<String, Object>> await(List<CompletableFuture<Map<String, Object>>> futures,
      Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    List<Map<String, Object>> out = new ArrayList<>();
    for (int p = 0; p < futures.size(); p++) {
      try {
        out.add(futures.get(p).get(Math.max(1, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        throw new LabAbortedException("lab process " + p + " did not answer within "
            + Durations.format(patience), e);
      } catch (ExecutionException e) {
        throw new LabAbortedException("lab process " + p + ": " + e.getCause().getMessage(),
            e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LabAbortedException("interrupted waiting for lab process " + p, e);
      }
    }
    return out;
  }

  @Override
  public void close() {
    children.forEach(Child::close);
  }

  /**
   * What one process measured in one round: its clients' counts and latencies, its strategy's
   * events and, after {@code verify}, how many of its acknowledged operations the documents hold.
   */
  record Part(long acknowledged, long errors, String errorSample, long elapsedNanos,
      Histogram latencyMicros, long attempts, long conflicts, long retries, long lockTimeouts,
      long fencedRejections, Histogram lockWaitMicros, boolean exclusiveLock, long expected,
      long visible) {

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("acknowledged", acknowledged);
      m.put("errors", errors);
      if (errorSample != null) {
        m.put("error_sample", errorSample);
      }
      m.put("elapsed_ns", elapsedNanos);
      m.put("latency", encode(latencyMicros));
      m.put("attempts", attempts);
      m.put("conflicts", conflicts);
      m.put("retries", retries);
      m.put("lock_timeouts", lockTimeouts);
      m.put("fenced_rejections", fencedRejections);
      m.put("lock_waits", encode(lockWaitMicros));
      m.put("exclusive_lock", exclusiveLock);
      return m;
    }

    static Part fromJson(Map<String, Object> m) {
      return new Part(num(m, "acknowledged"), num(m, "errors"), (String) m.get("error_sample"),
          num(m, "elapsed_ns"), decode((String) m.get("latency")), num(m, "attempts"),
          num(m, "conflicts"), num(m, "retries"), num(m, "lock_timeouts"),
          num(m, "fenced_rejections"), decode((String) m.get("lock_waits")),
          Boolean.TRUE.equals(m.get("exclusive_lock")), 0, 0);
    }

    Part withCounts(Map<String, Object> counts) {
      return new Part(acknowledged, errors, errorSample, elapsedNanos, latencyMicros, attempts,
          conflicts, retries, lockTimeouts, fencedRejections, lockWaitMicros, exclusiveLock,
          num(counts, "expected"), num(counts, "visible"));
    }

    private static long num(Map<String, Object> m, String name) {
      Object v = m.get(name);
      if (!(v instanceof Number n)) {
        throw new IllegalStateException("a lab process answered without '" + name + "': " + m);
      }
      return n.longValue();
    }

    static String encode(Histogram h) {
      ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
      int length = h.encodeIntoCompressedByteBuffer(buffer);
      return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }

    static Histogram decode(String text) {
      try {
        return Histogram.decodeFromCompressedByteBuffer(
            ByteBuffer.wrap(Base64.getDecoder().decode(text)), 0);
      } catch (java.util.zip.DataFormatException e) {
        throw new IllegalStateException("a lab process sent an unreadable histogram", e);
      }
    }
  }

  /** One child JVM and its pipes; replies are read on a thread of its own. */
  private static final class Child {
    private final int index;
    private final Process process;
    private final PrintWriter requests;
    private final BufferedReader replies;

    private Child(int index, Process process) {
      this.index = index;
      this.process = process;
      this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
      this.replies = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static Child start(int index, String mongoUri, String redisUri) {
      String java = ProcessHandle.current().info().command().orElse("java");
      List<String> command = List.of(java, CHILD_HEAP, "-XX:+UseSerialGC", "-cp",
          System.getProperty("java.class.path"), LabWorker.class.getName(), mongoUri,
          redisUri == null ? "-" : redisUri);
      try {
        return new Child(index, new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.INHERIT).start());
      } catch (IOException e) {
        throw new LabAbortedException("cannot start lab process " + index + ": " + e, e);
      }
    }

    CompletableFuture<Map<String, Object>> ask(Map<String, Object> request) {
      try {
        requests.println(JSON.writeValueAsString(request));
      } catch (IOException e) {
        throw new LabAbortedException("cannot write to lab process " + index + ": " + e, e);
      }
      CompletableFuture<Map<String, Object>> reply = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        try {
          reply.complete(read());
        } catch (RuntimeException e) {
          reply.completeExceptionally(e);
        }
      }, "lab-process-" + index);
      t.setDaemon(true);
      t.start();
      return reply;
    }

    private Map<String, Object> read() {
      try {
        String line = replies.readLine();
        if (line == null) {
          throw new IllegalStateException("exited (code "
              + (process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : "?") + ")");
        }
        Map<String, Object> reply = JSON.readValue(line, new TypeReference<>() {});
        if (reply.containsKey("failure")) {
          throw new IllegalStateException(String.valueOf(reply.get("failure")));
        }
        return reply;
      } catch (IOException e) {
        throw new IllegalStateException("cannot read its reply: " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted reading its reply", e);
      }
    }

    void close() {
      requests.close(); // end of input: the worker closes what it opened and exits
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
