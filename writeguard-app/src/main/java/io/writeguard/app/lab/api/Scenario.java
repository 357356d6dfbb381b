package io.writeguard.app.lab.api;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.writeguard.internal.Checks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * A workload the lab runs under every strategy: the documents, the operations clients send,
 * and how to count at the end what the documents actually hold.
 *
 * <p>{@code O} is the scenario's operation type (a mark to set, an amount to add, ...); the
 * strategies registered for a scenario apply operations of that type. Implementations are
 * stateless and thread-safe; all per-run state lives in the {@link ScenarioRun} that
 * {@link #start} returns.
 *
 * <p>This file holds the whole contract of a scenario: its {@link ScenarioSettings}, its
 * {@link ScenarioRun} (one strategy's documents and clients), a client's
 * {@link ClientWorkload}, and the {@link Verification} that counts, at the end, what the
 * documents hold. The scenarios that ship live in the sub-packages {@code readinfo},
 * {@code counter} and {@code transfer} of the lab, one or a few files each, and are registered
 * in {@code io.writeguard.app.lab.Scenarios}.
 */
public interface Scenario<O> {

  /** The name used by {@code --scenario}, e.g. {@code readinfo}. */
  String name();

  /** One line for the table header and {@code --help}. */
  String description();

  /** Hot documents when {@code --docs} is not given. */
  default int defaultDocs() {
    return 4;
  }

  /** The fewest hot documents the scenario can run with ({@code transfer} needs two). */
  default int minDocs() {
    return 1;
  }

  /**
   * Why this scenario cannot run on the server behind {@code client} (e.g. it needs
   * transactions and the server is standalone), or empty when it can. Asked once before
   * anything runs; the lab then reports the reason and measures nothing.
   */
  default Optional<String> unsupportedReason(MongoClient client) {
    return Optional.empty();
  }

  /**
   * True when the clients can be spread over several processes ({@code --processes}): each
   * process's {@link ScenarioRun#verify} then counts its own clients' acknowledged operations,
   * and the lab sums them. A scenario whose figures are read once per run (the counter's
   * totals, transfer's sum) answers false, and the lab refuses {@code --processes} for it.
   * Default: false.
   */
  default boolean countsPerProcess() {
    return false;
  }

  /**
   * Creates fresh documents in {@code collection} (which the lab has just emptied) and returns
   * the state of one strategy's run on them.
   */
  ScenarioRun<O> start(MongoCollection<Document> collection, ScenarioSettings settings);

  /**
   * A scenario that moves amounts of a balance ({@code counter}, {@code transfer}): it reads
   * {@link ScenarioSettings#balances()}, so the lab accepts {@code --balance},
   * {@code --max-amount} and {@code --shards} for it and writes them into the report.
   */
  interface BalanceScenario<O> extends Scenario<O> {}

  /**
   * What a scenario needs to know about the run: how many concurrent clients, how many hot
   * documents, the seed every client's operation stream is drawn from, and the numbers of the
   * balance scenarios. Immutable.
   */
  record ScenarioSettings(int clients, int docs, long seed, BalanceSettings balances) {
    public ScenarioSettings {
      Objects.requireNonNull(balances, "balances");
    }

    /** Settings with the default balances. */
    public ScenarioSettings(int clients, int docs, long seed) {
      this(clients, docs, seed, BalanceSettings.DEFAULTS);
    }
  }

  /**
   * One strategy's run of a scenario, on documents created for it alone.
   *
   * <p>The lab calls {@link #prepare} once with the run's strategy, then {@link #client} once per
   * client before the run, drives each returned {@link ClientWorkload} from that client's thread
   * only, calls {@link #verify} once after every client has stopped, and {@link #close} last
   * (also when the run failed). Implementations must be safe for that use: {@link #client} and
   * the workloads' {@code next} may run concurrently with each other.
   */
  interface ScenarioRun<O> extends AutoCloseable {

    /**
     * Called once with the strategy this run measures, before any client starts. A scenario
     * whose starting documents depend on how the strategy stores its data (the counter's
     * layouts) creates them here. Default: nothing.
     */
    default void prepare(Strategy<O> strategy) {}

    /** The operation stream of client {@code index} (0-based), drawn from {@code seed}. */
    ClientWorkload<O> client(int index, long seed);

    /**
     * Reads the documents and counts how much of what the clients recorded as acknowledged is
     * visible. Called after all clients have stopped.
     *
     * @throws com.mongodb.MongoException when the documents cannot be read
     */
    Verification verify(List<? extends ClientWorkload<O>> clients);

    /** Stops whatever the run started besides the clients (a reader thread). Default: nothing. */
    @Override
    default void close() {}
  }

  /**
   * The operations of one client, and its record of which ones the server acknowledged.
   * Used by that client's thread only; not thread-safe.
   */
  interface ClientWorkload<O> {

    /** The next operation to send. */
    O next();

    /** Records that {@code op}, returned by {@link #next}, was acknowledged by the server. */
    void acknowledged(O op);
  }

  /**
   * What a run left in the documents, counted exactly.
   *
   * @param expected what must be visible because it was acknowledged (for {@code readinfo}: the
   *     distinct marks acknowledged; a mark acknowledged twice counts once)
   * @param visible how much of {@code expected} the documents hold
   * @param figures scenario-specific numbers reported next to the standard ones (for
   *     {@code counter}: {@code final_total}, {@code expected_total}, {@code min_total}, ...),
   *     in the order given; names are JSON names. A figure named {@link #VIOLATIONS} counts
   *     broken invariants (e.g. a negative total seen by a reader) and fails the run like a lost
   *     update.
   */
  record Verification(long expected, long visible, Map<String, Object> figures) {
    /** The figure that counts broken invariants other than lost updates. */
    public static final String VIOLATIONS = "violations";

    public Verification {
      Checks.atLeast("expected", expected, 0);
      Checks.atLeast("visible", visible, 0);
      if (visible > expected) {
        throw new IllegalArgumentException(
            "visible must be <= expected, was " + visible + " > " + expected);
      }
      figures = java.util.Collections.unmodifiableMap(
          new LinkedHashMap<>(Objects.requireNonNull(figures, "figures")));
    }

    /** A verification with no scenario-specific figures. */
    public Verification(long expected, long visible) {
      this(expected, visible, Map.of());
    }

    /** Acknowledged but not visible: lost updates. */
    public long lost() {
      return expected - visible;
    }
  }
}
