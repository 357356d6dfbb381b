package io.writeguard.update;

import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records update events as short strings, e.g. {@code "conflict 1"}. Thread-safe. */
final class RecordingListener implements WriteGuardListener {
  final List<String> events = new CopyOnWriteArrayList<>();
  final List<OperationScope> scopes = new CopyOnWriteArrayList<>();

  @Override
  public void onAttempt(OperationScope scope, Object key, int attempt) {
    scopes.add(scope);
    events.add("attempt " + attempt);
  }

  @Override
  public void onConflict(OperationScope scope, Object key, int attempt) {
    events.add("conflict " + attempt);
  }

  @Override
  public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
    events.add("retry " + attempt);
  }

  @Override
  public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
    events.add("success " + attempts);
  }

  @Override
  public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
    events.add("exhausted " + attempts);
  }

  @Override
  public void onFailure(OperationScope scope, Object key, Throwable error) {
    events.add("failure " + error.getClass().getSimpleName());
  }
}
