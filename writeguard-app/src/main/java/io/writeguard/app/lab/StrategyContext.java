package io.writeguard.app.lab;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.util.Objects;
import org.bson.Document;

/**
 * What a strategy gets for one run: the run's collection, the listener that counts its
 * attempts, conflicts, retries, lock waits and fenced rejections (already wrapped so it never
 * throws), the scope to report them under, the clock to time them with, and the other servers
 * it may use (lock collections, Redis).
 */
public record StrategyContext(
    MongoCollection<Document> collection,
    WriteGuardListener listener,
    OperationScope scope,
    Ticker ticker,
    LabServices services) {
  public StrategyContext {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(services, "services");
  }

  /** A context without other servers ({@link LabServices#none()}). */
  public StrategyContext(MongoCollection<Document> collection, WriteGuardListener listener,
      OperationScope scope, Ticker ticker) {
    this(collection, listener, scope, ticker, LabServices.none());
  }
}
