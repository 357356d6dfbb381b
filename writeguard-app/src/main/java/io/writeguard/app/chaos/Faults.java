package io.writeguard.app.chaos;

import java.util.List;

/**
 * Every fault of {@code writeguard chaos}, in the order they run: the one place that lists
 * them. A new fault is a {@link Fault} in its family's file (or a new one) and an entry here.
 * Stateless.
 */
final class Faults {
  /** Every fault, in the order they run. */
  static final List<Fault> ALL = List.of(NetworkFaults.RESET_REFUSE, NetworkFaults.BLACKHOLE,
      PauseFault.PAUSE, KillFaults.REDIS_KILL, KillFaults.MONGO_KILL, ServeFaults.SERVE_TERM,
      ServeFaults.SERVE_KILL);
  /** Every fault's name, in the order they run. */
  static final List<String> NAMES = ALL.stream().map(Fault::name).toList();

  private Faults() {}

  /** @throws IllegalArgumentException naming the unknown fault and the valid ones */
  static Fault named(String name) {
    return ALL.stream().filter(f -> f.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + name + "' (valid: "
            + String.join(", ", NAMES) + ")"));
  }
}
