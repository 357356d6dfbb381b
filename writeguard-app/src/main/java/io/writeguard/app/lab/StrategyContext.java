package io.writeguard.app.lab;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.util.Objects;
import org.bson.Document;

/**
 * What a strategy gets for one run: the run's collection, the listener that counts its
 * attempts, conflicts and retries (already wrapped so it never throws), the scope to report
 * them under, and the clock to time them with.
 */
public record StrategyContext(
    MongoCollection<Document> collection,
    WriteGuardListener listener,
    OperationScope scope,
    Ticker ticker) {
  public StrategyContext {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(ticker, "ticker");
  }
}
