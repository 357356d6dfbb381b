package io.writeguard.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.bson.types.ObjectId;

/**
 * Clients of one process: this one ({@link InProcessGroup}) or a child JVM
 * ({@link ChildProcessGroup}). The bench starts every group's share of a round before it waits
 * for any, so all processes hit the document at the same time.
 */
interface ClientGroup extends AutoCloseable {

  /**
   * Starts {@code clients} clients of {@code contender} for {@code duration}, client {@code c}
   * on {@code docs.get(c % docs.size())}.
   */
  CompletableFuture<RoundPart> start(String contender, List<ObjectId> docs, int clients,
      Duration duration);

  @Override
  void close();
}
