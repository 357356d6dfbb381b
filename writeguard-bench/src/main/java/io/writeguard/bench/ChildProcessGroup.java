package io.writeguard.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.types.ObjectId;

/**
 * Clients in a child JVM started from the same class path ({@link BenchWorker}), talking one
 * JSON line per round over the child's stdin and stdout; the child's stderr goes to ours. The
 * child connects to the same servers by URI. One round at a time; not thread-safe.
 */
final class ChildProcessGroup implements ClientGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final PrintWriter requests;
  private final BufferedReader replies;
  private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "bench-child-reader");
    t.setDaemon(true);
    return t;
  });

  private ChildProcessGroup(Process process) {
    this.process = process;
    this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    this.replies = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts child {@code index} of {@code count}, on the servers of {@code mongoUri}/{@code redisUri}. */
  static ChildProcessGroup start(int index, int count, String mongoUri, String collection,
      String redisUri) {
    return start(index, count, mongoUri, collection, redisUri, false);
  }

  /** As above; {@code countCommands}: the child counts its MongoDB commands. */
  static ChildProcessGroup start(int index, int count, String mongoUri, String collection,
      String redisUri, boolean countCommands) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "-cp",
        System.getProperty("java.class.path"), BenchWorker.class.getName(),
        mongoUri, collection, redisUri == null ? "-" : redisUri,
        Integer.toString(index), Integer.toString(count), Boolean.toString(countCommands)));
    try {
      return new ChildProcessGroup(new ProcessBuilder(command)
          .redirectError(ProcessBuilder.Redirect.INHERIT).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start bench worker " + index + ": " + command, e);
    }
  }

  @Override
  public CompletableFuture<RoundPart> start(String contender, List<ObjectId> docs, int clients,
      Duration duration) {
    try {
      requests.println(JSON.writeValueAsString(Map.of("contender", contender,
          "docs", docs.stream().map(ObjectId::toHexString).toList(), "clients", clients, "duration_ms", duration.toMillis())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return CompletableFuture.supplyAsync(this::readReply, reader);
  }

  private RoundPart readReply() {
    try {
      String line = replies.readLine();
      if (line == null) {
        throw new IllegalStateException("bench worker exited (code "
            + (process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : "?") + ")");
      }
      Map<String, Object> reply = JSON.readValue(line, new TypeReference<>() {});
      if (reply.containsKey("failure")) {
        throw new IllegalStateException("bench worker failed: " + reply.get("failure"));
      }
      return RoundPart.fromJson(reply);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a bench worker's reply", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading a bench worker's reply", e);
    }
  }

  @Override
  public void close() {
    requests.close(); // end of input: the worker closes its contenders and exits
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroy();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroy();
    }
    reader.shutdownNow();
  }
}
