package io.writeguard.app.lab;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.internal.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code lab --processes 1,2,4}: the process counts a run measures at, as the user typed them,
 * and which strategies' losses are expected at each. Stateless.
 */
final class ProcessCounts {
  /** Strategies whose lock holds in one process only: across processes they lose by design. */
  static final Set<String> ONE_PROCESS_ONLY = Set.of("local-lock");

  private ProcessCounts() {}

  /**
   * The process counts of {@code --processes} ({@code given}, as typed) for the client
   * {@code counts}: whole numbers from 1 to the fewest clients (every process runs at least
   * one client), none twice, and several only with one client count.
   *
   * @throws UsageException naming the value that is not one
   */
  static List<Integer> parse(List<String> given, List<Integer> counts) {
    if (given == null || given.isEmpty()) {
      throw new UsageException("--processes needs at least one count");
    }
    int fewest = counts.stream().mapToInt(Integer::intValue).min().orElse(1);
    List<Integer> out = new ArrayList<>();
    for (String text : given) {
      int n;
      try {
        n = Integer.parseInt(text.trim());
      } catch (NumberFormatException e) {
        throw new UsageException("--processes must be whole numbers between 1 and the clients ("
            + fewest + "), was " + Checks.quote(text));
      }
      if (n < 1 || n > fewest) {
        throw new UsageException("--processes must be between 1 and the clients (" + fewest
            + "), was " + n);
      }
      if (out.contains(n)) {
        throw new UsageException("--processes lists " + n + " twice");
      }
      out.add(n);
    }
    if (out.size() > 1 && counts.size() > 1) {
      throw new UsageException("give several --processes or several --clients, not both (was"
          + " --processes " + String.join(",", given) + " --clients "
          + counts.stream().map(String::valueOf).collect(Collectors.joining(",")) + ")");
    }
    return List.copyOf(out);
  }

  /**
   * The strategies whose losses are expected in {@code processes} processes: those that exist
   * to show the problem, and across processes those that lock one process only.
   */
  static Set<String> blind(LabPlan<?> plan, int processes) {
    return plan.strategies().stream()
        .filter(s -> s.reproducesLoss() || processes > 1 && ONE_PROCESS_ONLY.contains(s.name()))
        .map(LabStrategy::name).collect(Collectors.toSet());
  }
}
