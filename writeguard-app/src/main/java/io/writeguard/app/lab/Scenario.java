package io.writeguard.app.lab;

import com.mongodb.client.MongoCollection;
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

  /**
   * Creates fresh documents in {@code collection} (which the lab has just emptied) and returns
   * the state of one strategy's run on them.
   */
  ScenarioRun<O> start(MongoCollection<Document> collection, ScenarioSettings settings);
}
