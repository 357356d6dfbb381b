package io.writeguard.app.lab;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import java.util.Optional;
import org.bson.Document;

/**
 * A workload the lab runs under every strategy: the documents, the operations clients send,
 * and how to count at the end what the documents actually hold.
 *
 * <p>{@code O} is the scenario's operation type (a mark to set, an amount to add, ...); the
 * strategies registered for a scenario apply operations of that type. Implementations are
 * stateless and thread-safe; all per-run state lives in the {@link ScenarioRun} that
 * {@link #start} returns.
 */
public interface Scenario<O> {

  /** The name used by {@code --scenario}, e.g. {@code readinfo}. */
  String name();

  /** One line for the table header and {@code --help}. */
  String description();

  /** Hot documents when {@code --docs} is not given. */
  default int defaultDocs() {
    return 4;
  }

  /** The fewest hot documents the scenario can run with ({@code transfer} needs two). */
  default int minDocs() {
    return 1;
  }

  /**
   * Why this scenario cannot run on the server behind {@code client} (e.g. it needs
   * transactions and the server is standalone), or empty when it can. Asked once before
   * anything runs; the lab then reports the reason and measures nothing.
   */
  default Optional<String> unsupportedReason(MongoClient client) {
    return Optional.empty();
  }

  /**
   * Creates fresh documents in {@code collection} (which the lab has just emptied) and returns
   * the state of one strategy's run on them.
   */
  ScenarioRun<O> start(MongoCollection<Document> collection, ScenarioSettings settings);
}
