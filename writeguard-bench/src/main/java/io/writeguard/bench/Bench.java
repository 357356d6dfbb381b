package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;

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
 *
 * <p>The workload's shape: one hot document shared by all clients, or one per client
 * ({@code perClientDocuments}); each hot document padded with {@code padBytes}; and cold
 * documents inserted before the warm-up so that the collection holds {@code collectionDocs}
 * documents with the hot ones (removed again at the end).
 */
final class Bench {

  /** The most documents {@code --collection-docs} may ask for. */
  static final int MAX_COLLECTION_DOCS = 10_000_000;

  /** What to run. */
  record Settings(List<String> contenders, int clients, int processes, int rounds,
      Duration warmup, Duration duration, boolean perClientDocuments, int collectionDocs,
      int padBytes) {

    /** One small hot document shared by all clients, alone in its collection. */
    Settings(List<String> contenders, int clients, int processes, int rounds, Duration warmup,
        Duration duration) {
      this(contenders, clients, processes, rounds, warmup, duration, false, 1, 0);
    }

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
      if (collectionDocs < 1 || collectionDocs > MAX_COLLECTION_DOCS) {
        throw new IllegalArgumentException("collection documents must be between 1 and "
            + MAX_COLLECTION_DOCS + ", was " + collectionDocs);
      }
      if (padBytes < 0 || padBytes > HotDocument.MAX_PAD) {
        throw new IllegalArgumentException("pad must be between 0 and " + HotDocument.MAX_PAD
            + " bytes, was " + padBytes);
      }
    }

    /** Hot documents in a round. */
    int hotDocuments() {
      return perClientDocuments ? clients : 1;
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
    int fillers = Math.max(0, settings.collectionDocs() - settings.hotDocuments());
    insertFillers(fillers);
    try {
      return runRounds();
    } finally {
      if (fillers > 0) {
        hot.deleteMany(eq(HotDocument.FILLER, true));
      }
    }
  }

  private void insertFillers(int count) {
    List<Document> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(HotDocument.filler());
      if (batch.size() == 1000 || i == count - 1) {
        hot.insertMany(batch);
        batch.clear();
      }
    }
    if (count > 0) {
      progress.printf("inserted %d cold documents%n", count);
    }
  }

  private Result runRounds() {
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

  /** One contender on fresh documents for {@code duration}, checked. */
  RoundResult once(String name, int round, Duration duration) {
    List<ObjectId> docIds = new ArrayList<>();
    for (int d = 0; d < settings.hotDocuments(); d++) {
      ObjectId docId = new ObjectId();
      hot.insertOne(HotDocument.fresh(docId, settings.padBytes()));
      docIds.add(docId);
    }
    List<CompletableFuture<RoundPart>> started = new ArrayList<>();
    int first = 0;
    for (int p = 0; p < groups.size(); p++) {
      List<ObjectId> docs = settings.perClientDocuments()
          ? List.copyOf(docIds.subList(first, first + share(p))) : docIds;
      started.add(groups.get(p).start(name, docs, share(p), duration));
      first += share(p);
    }
    RoundPart total = new RoundPart();
    started.forEach(f -> total.merge(f.join()));
    LossCheck check = LossCheck.of(hot, docIds, total.acked);
    hot.deleteMany(in("_id", docIds));
    return RoundResult.of(name, round, total, check.lost(), check.writtenNotAcked());
  }

  /** Clients of process {@code p}: an even split, the first ones taking the remainder. */
  int share(int p) {
    int each = settings.clients() / settings.processes();
    return each + (p < settings.clients() % settings.processes() ? 1 : 0);
  }
}
