package io.writeguard.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when every configured lock store answers ({@link LockStoreProbe}), DOWN naming the ones
 * that do not. A store that cannot be reached means {@code @LeaseLocked} methods fail with
 * {@code DataAccessResourceFailureException}; the optimistic updaters do not depend on it.
 * Each check is one round trip (MongoDB {@code ping}, Redis {@code PING}), bounded by the
 * client's own timeouts. Thread-safe.
 */
public class WriteGuardHealthIndicator implements HealthIndicator {
  private final List<LockStoreProbe> probes;

  public WriteGuardHealthIndicator(List<LockStoreProbe> probes) {
    this.probes = List.copyOf(probes);
  }

  @Override
  public Health health() {
    Map<String, Object> details = new LinkedHashMap<>();
    boolean up = true;
    for (LockStoreProbe probe : probes) {
      try {
        details.put(probe.name(), "UP: " + probe.check());
      } catch (RuntimeException e) {
        up = false;
        details.put(probe.name(), "DOWN: " + e);
      }
    }
    return (up ? Health.up() : Health.down()).withDetails(details).build();
  }
}
