package io.writeguard.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.bson.types.ObjectId;

/**
 * Clients in this JVM. Each contender is created on first use and kept for the whole run (its
 * connections stay warm across rounds, as in an application), closed with the group. One round
 * at a time; not thread-safe.
 */
final class InProcessGroup implements ClientGroup {
  private final Backends backends;
  private final int process;
  private final int processes;
  private final Map<String, Contender> contenders = new LinkedHashMap<>();
  private final ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "bench-round");
    t.setDaemon(true);
    return t;
  });

  /** Process {@code process} of {@code processes} (0 of 1 for a single-process run). */
  InProcessGroup(Backends backends, int process, int processes) {
    this.backends = backends;
    this.process = process;
    this.processes = processes;
  }

  @Override
  public CompletableFuture<RoundPart> start(String name, List<ObjectId> docs, int clients,
      Duration duration) {
    Contender contender = contenders.computeIfAbsent(name, n -> Contenders.create(n, backends));
    return CompletableFuture.supplyAsync(() -> {
      long commands0 = backends.mongoCommandsSent();
      RoundPart part = ClientRound.run(contender, docs, clients, duration, 0, process, processes);
      part.mongoCommands = commands0 < 0 ? -1 : backends.mongoCommandsSent() - commands0;
      return part;
    }, runner);
  }

  @Override
  public void close() {
    runner.shutdownNow();
    contenders.values().forEach(Contender::close);
    contenders.clear();
  }
}
