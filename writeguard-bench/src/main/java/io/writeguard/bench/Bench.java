package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Runs the contenders on one hot document each round: a warm-up of every contender first (not
 * counted), then {@code rounds} rounds in which every contender runs once, the order rotated
 * each round so that no contender always runs first or last, each on a fresh document. After
 * each run the final document is read and every acknowledged operation checked in it. Clients
 * are spread over the {@link ClientGroup}s (one per process). Not thread-safe.
 */
final class Bench {

  /** What to run. */
  record Settings(List<String> contenders, int clients, int processes, int rounds,
      Duration warmup, Duration duration) {
    Settings {
      contenders = List.copyOf(contenders);
      if (contenders.isEmpty()) {
        throw new IllegalArgumentException("contenders must not be empty");
      }
      contenders.forEach(Contenders::check);
      if (clients < 1) {
        throw new IllegalArgumentException("clients must be at least 1, was " + clients);
      }
      if (processes < 1 || processes > clients) {
        throw new IllegalArgumentException("processes must be between 1 and clients ("
            + clients + "), was " + processes);
      }
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be at least 1, was " + rounds);
      }
      if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
        throw new IllegalArgumentException("warmup must be >= 0 and duration > 0, were "
            + warmup + " and " + duration);
      }
    }
  }

  /** Everything a run measured. */
  record Result(Settings settings, List<ContenderSummary> summaries, List<RoundResult> rounds) {}

  private final Settings settings;
  private final MongoCollection<Document> hot;
  private final List<ClientGroup> groups;
  private final PrintStream progress;

  Bench(Settings settings, MongoCollection<Document> hot, List<ClientGroup> groups,
      PrintStream progress) {
    if (groups.size() != settings.processes()) {
      throw new IllegalArgumentException(groups.size() + " client groups for "
          + settings.processes() + " processes");
    }
    this.settings = settings;
    this.hot = hot;
    this.groups = List.copyOf(groups);
    this.progress = progress;
  }

  Result run() {
    List<String> names = settings.contenders();
    if (!settings.warmup().isZero()) {
      for (String name : names) {
        progress.printf("warm-up  %s%n", name);
        once(name, 0, settings.warmup());
      }
    }
    List<RoundResult> all = new ArrayList<>();
    Map<String, List<RoundResult>> byContender = new LinkedHashMap<>();
    names.forEach(n -> byContender.put(n, new ArrayList<>()));
    for (int round = 1; round <= settings.rounds(); round++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get((k + round - 1) % names.size());
        RoundResult result = once(name, round, settings.duration());
        progress.printf("round %d/%d  %-22s %9.0f ops/s  p99 %8.1f ms  lost %d%n", round,
            settings.rounds(), name, result.throughputOpsS(), result.p99Ms(), result.lost());
        all.add(result);
        byContender.get(name).add(result);
      }
    }
    List<ContenderSummary> summaries = new ArrayList<>();
    byContender.forEach((name, rounds) -> summaries.add(ContenderSummary.of(name, rounds)));
    return new Result(settings, summaries, all);
  }

  /** One contender on a fresh document for {@code duration}, checked. */
  RoundResult once(String name, int round, Duration duration) {
    ObjectId docId = new ObjectId();
    hot.insertOne(HotDocument.fresh(docId));
    List<CompletableFuture<RoundPart>> started = new ArrayList<>();
    for (int p = 0; p < groups.size(); p++) {
      started.add(groups.get(p).start(name, docId, share(p), duration));
    }
    RoundPart total = new RoundPart();
    started.forEach(f -> total.merge(f.join()));
    LossCheck check = LossCheck.of(hot, docId, total.acked);
    hot.deleteOne(eq("_id", docId));
    return RoundResult.of(name, round, total, check.lost(), check.writtenNotAcked());
  }

  /** Clients of process {@code p}: an even split, the first ones taking the remainder. */
  int share(int p) {
    int each = settings.clients() / settings.processes();
    return each + (p < settings.clients() % settings.processes() ? 1 : 0);
  }
}
