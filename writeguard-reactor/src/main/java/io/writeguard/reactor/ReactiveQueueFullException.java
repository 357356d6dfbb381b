package io.writeguard.reactor;

import io.writeguard.WriteGuardException;

/**
 * A reactive call was refused because the facade's executor is full: every thread is busy and
 * {@code queueCapacity} calls already wait. Nothing was started and nothing was written; the
 * same call may succeed later. Delivered as the {@code Mono}'s error at subscription, never as
 * a wait.
 */
public class ReactiveQueueFullException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final int threads;
  private final int queueCapacity;

  public ReactiveQueueFullException(String executor, int threads, int queueCapacity) {
    super("executor '" + executor + "' is full: " + threads + " threads busy and "
        + queueCapacity + " calls queued (its queue capacity); nothing was started");
    this.threads = threads;
    this.queueCapacity = queueCapacity;
  }

  /** The executor's threads, all busy when the call was refused. */
  public int threads() {
    return threads;
  }

  /** The executor's queue capacity, reached when the call was refused. */
  public int queueCapacity() {
    return queueCapacity;
  }
}
