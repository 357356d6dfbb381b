package io.writeguard.monitor;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards events to listeners, logging and ignoring whatever they throw: an {@code Error} too
 * (an assertion in a metrics callback must not turn a stored write into a reported failure),
 * except a {@link VirtualMachineError}, after which the JVM cannot be trusted to go on.
 * Thread-safe.
 */
final class SafeListener implements WriteGuardListener {
  private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

  private final List<WriteGuardListener> targets;

  private SafeListener(List<WriteGuardListener> targets) {
    this.targets = targets;
  }

  static WriteGuardListener wrap(WriteGuardListener listener) {
    if (listener == null || listener == NOOP) {
      return NOOP;
    }
    return listener instanceof SafeListener ? listener : new SafeListener(List.of(listener));
  }

  static WriteGuardListener composite(WriteGuardListener... listeners) {
    return new SafeListener(List.of(listeners));
  }

  private void each(String event, Consumer<WriteGuardListener> call) {
    for (WriteGuardListener target : targets) {
      try {
        call.accept(target);
      } catch (VirtualMachineError e) {
        throw e;
      } catch (Throwable e) { // a checked exception thrown undeclared too: never the caller's
        log.warn("listener {} threw on {}; ignored", target.getClass().getName(), event, e);
      }
    }
  }

  @Override
  public void onAttempt(OperationScope scope, Object key, int attempt) {
    each("attempt", l -> l.onAttempt(scope, key, attempt));
  }

  @Override
  public void onConflict(OperationScope scope, Object key, int attempt) {
    each("conflict", l -> l.onConflict(scope, key, attempt));
  }

  @Override
  public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
    each("retry", l -> l.onRetry(scope, key, attempt, backoff));
  }

  @Override
  public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
    each("success", l -> l.onSuccess(scope, key, attempts, elapsed));
  }

  @Override
  public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
    each("exhausted", l -> l.onExhausted(scope, key, attempts, elapsed));
  }

  @Override
  public void onFailure(OperationScope scope, Object key, Throwable error) {
    each("failure", l -> l.onFailure(scope, key, error));
  }

  @Override
  public void onBatch(OperationScope scope, Object key, int size) {
    each("batch", l -> l.onBatch(scope, key, size));
  }

  @Override
  public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
    each("lock wait", l -> l.onLockWait(backend, key, waited, acquired));
  }

  @Override
  public void onLockReleased(String backend, String key, long token, Duration held) {
    each("lock released", l -> l.onLockReleased(backend, key, token, held));
  }

  @Override
  public void onLeaseLost(String backend, String key, long token) {
    each("lease lost", l -> l.onLeaseLost(backend, key, token));
  }

  @Override
  public void onFencedRejection(OperationScope scope, Object key, long token) {
    each("fenced rejection", l -> l.onFencedRejection(scope, key, token));
  }

  @Override
  public void onTransactionRetry(String errorLabel, int attempt) {
    each("transaction retry", l -> l.onTransactionRetry(errorLabel, attempt));
  }
}
