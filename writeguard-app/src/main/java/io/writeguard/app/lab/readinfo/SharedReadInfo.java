package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.update.RetryPolicy;
import java.util.Objects;

/**
 * A lab strategy that runs one of the shared mark-as-read strategies
 * ({@link MarkReadStrategies}), the same code the HTTP service runs. Closing it closes what was
 * opened for the run (lock services). Thread-safe: the shared strategies are.
 */
final class SharedReadInfo implements Strategy<Mark> {
  private final MarkReadStrategy strategy;
  private final AutoCloseable resources;
  private final boolean exclusiveLock;

  SharedReadInfo(MarkReadStrategy strategy, AutoCloseable resources) {
    this(strategy, resources, false);
  }

  /** {@code exclusiveLock}: see {@link Strategy#holdsExclusiveLock()}. */
  SharedReadInfo(MarkReadStrategy strategy, AutoCloseable resources, boolean exclusiveLock) {
    this.strategy = Objects.requireNonNull(strategy, "strategy");
    this.resources = Objects.requireNonNull(resources, "resources");
    this.exclusiveLock = exclusiveLock;
  }

  /** The lab's defaults: its listener and ticker, the given retry policy and hook. */
  static MarkReadDeps.Builder deps(StrategyContext context, RetryPolicy policy,
      Runnable betweenReadAndWrite) {
    return MarkReadDeps.builder(context.collection())
        .listener(context.listener())
        .ticker(context.ticker())
        .retryPolicy(policy)
        .betweenReadAndWrite(betweenReadAndWrite);
  }

  /** {@code name} on the lab's defaults, with nothing to close. */
  static SharedReadInfo create(String name, StrategyContext context, RetryPolicy policy,
      Runnable betweenReadAndWrite) {
    return new SharedReadInfo(
        MarkReadStrategies.create(name, deps(context, policy, betweenReadAndWrite).build()),
        () -> {});
  }

  @Override
  public void apply(Mark mark) {
    strategy.mark(new ReadItem(mark.docId(), mark.key(), mark.skey(), mark.index()), mark.user());
  }

  @Override
  public boolean holdsExclusiveLock() {
    return exclusiveLock;
  }

  @Override
  public void close() {
    try {
      resources.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the resources of lab strategy '"
          + strategy.name() + "' failed: " + e, e);
    }
  }
}
