package io.writeguard.app.chaos;

import java.util.List;

/**
 * One fault of a chaos run: its name for {@code --faults}, and what it does on the run's
 * {@link Testbed} (inject itself under load, then check every operation), which gives its rows
 * of the table. The faults are registered, in run order, in {@link Faults}; each family of
 * similar faults is one file ({@link NetworkFaults}, {@link PauseFault}, {@link KillFaults},
 * {@link ServeFaults}). Immutable.
 */
record Fault(String name, Body body) {

  /** What a fault does on the test bed; called once per run, on the coordinator's thread. */
  @FunctionalInterface
  interface Body {
    List<ChaosRow> run(Testbed bed) throws Exception;
  }
}
