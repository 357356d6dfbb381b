package io.writeguard.app.lab;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.util.Objects;
import org.bson.Document;

/**
 * What a strategy gets for one run: the run's collection, the listener that counts its
 * attempts, conflicts, retries, lock waits and fenced rejections (already wrapped so it never
 * throws), the scope to report them under, the clock to time them with, the client the
 * collection belongs to (for strategies that need sessions, such as transactions; null when
 * the runner was given none), and the other servers it may use (lock collections, Redis).
 * Immutable.
 */
public record StrategyContext(
    MongoCollection<Document> collection,
    WriteGuardListener listener,
    OperationScope scope,
    Ticker ticker,
    MongoClient client,
    LabServices services) {
  public StrategyContext {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(services, "services");
  }

  /**
   * A context with neither a client nor other servers ({@link LabServices#none()}), for
   * strategies that need only the collection.
   */
  public StrategyContext(MongoCollection<Document> collection, WriteGuardListener listener,
      OperationScope scope, Ticker ticker) {
    this(collection, listener, scope, ticker, null, LabServices.none());
  }
}
