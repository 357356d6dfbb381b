package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pause fault of {@code writeguard chaos}, without processes: holder A takes the MongoDB
 * lease, claims a balance document {@code {balance, ledger, version}} and "pauses" (its own
 * clock is frozen and it has no watchdog, so it never learns that its lease ran out, as after
 * SIGCONT before the watchdog runs); holder B, another service instance on the same lock
 * collection, takes over on the server's clock and writes; then A writes. A must be refused by
 * MongoDB whatever form either write takes (the chaos counter's claim + replace of the
 * document read plus one ledger entry, {@code updateOne}, {@code findOneAndUpdate}, a replace
 * with a filter), with or without B's claim, with or without a version policy, and also when
 * A's own process hands the stale lease on to a second local caller.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class PausedHolderFenceTest {
  private static final Duration LEASE = Duration.ofMillis(150);
  private static final VersionPolicy VERSIONS = VersionPolicy.defaults();

  private final MongoDatabase db = TestMongo.freshDatabase("PausedHolderFence");
  private final MongoCollection<Document> docs = db.getCollection("docs");
  private final List<MongoLeaseLockService> services = new ArrayList<>();

  @AfterEach
  void close() {
    services.forEach(MongoLeaseLockService::close);
  }

  /** How a holder writes its ledger entry. */
  enum Form {
    /** The chaos counter workload: the claimed document plus one entry, replaced by id. */
    REPLACE_CLAIMED,
    /** The same replacement, only where the balance is still the one read. */
    REPLACE_IF_BALANCE,
    /** {@code $inc} of the balance and {@code $push} of the entry. */
    UPDATE_ONE,
    /** The same update through {@code findOneAndUpdate}. */
    FIND_ONE_AND_UPDATE
  }

  static Stream<Arguments> forms() {
    List<Arguments> all = new ArrayList<>();
    for (Form paused : Form.values()) {
      for (Form takeover : Form.values()) {
        for (boolean claims : new boolean[] {true, false}) {
          for (boolean versioned : new boolean[] {false, true}) {
            all.add(Arguments.of(paused, takeover, claims, versioned));
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "paused {0}, takeover {1} (claims first: {2}), versioned {3}")
  @MethodSource("forms")
  void aPausedHoldersLateWriteIsRefusedAfterATakeover(Form paused, Form takeover,
      boolean takeoverClaims, boolean versioned) throws Exception {
    FencedWriter writer = writer(versioned);
    String id = "d-" + paused + "-" + takeover + "-" + takeoverClaims + "-" + versioned;
    docs.insertOne(seed(id));
    MongoLeaseLockService pausedService = frozenService();
    MongoLeaseLockService takeoverService = liveService();

    LockHandle stale = pausedService.acquire("docs:" + id, Duration.ofSeconds(5));
    Document read = writer.claim(stale, id).orElseThrow();
    pauseUntilTheServerSeesTheLeaseExpire(id);

    long newerToken;
    try (LockHandle newer = takeoverService.acquire("docs:" + id, Duration.ofSeconds(10))) {
      newerToken = newer.token();
      assertThat(newerToken).as("a take-over's block starts above the paused block")
          .isGreaterThan(stale.token());
      Document current = takeoverClaims ? writer.claim(newer, id).orElseThrow()
          : docs.find(eq("_id", id)).first();
      assertThat(write(writer, newer, id, current, "B", takeover, versioned))
          .isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    assertThat(stale.isLost()).as("the paused holder has not noticed").isFalse();

    assertThatThrownBy(() -> write(writer, stale, id, read, "A", paused, versioned))
        .isInstanceOf(StaleLockException.class)
        .hasMessageContaining("token " + stale.token());

    Document stored = docs.find(eq("_id", id)).first();
    assertThat(entries(stored)).as("B's entry kept, A's refused").containsExactly("B");
    assertThat(stored.getLong("balance")).isEqualTo(21L);
    assertThat(((Number) stored.get(Fencing.FIELD)).longValue()).isEqualTo(newerToken);
    stale.close();
  }

  /** The takeover holder claims and then writes nothing (the chaos debit it refused). */
  @ParameterizedTest(name = "paused {0}")
  @MethodSource("pausedForms")
  void aClaimAloneRefusesThePausedHolder(Form paused) throws Exception {
    FencedWriter writer = writer(false);
    String id = "claim-only-" + paused;
    docs.insertOne(seed(id));
    LockHandle stale = frozenService().acquire("docs:" + id, Duration.ofSeconds(5));
    Document read = writer.claim(stale, id).orElseThrow();
    pauseUntilTheServerSeesTheLeaseExpire(id);
    try (LockHandle newer = liveService().acquire("docs:" + id, Duration.ofSeconds(10))) {
      assertThat(writer.claim(newer, id)).isPresent();
    }
    assertThatThrownBy(() -> write(writer, stale, id, read, "A", paused, false))
        .isInstanceOf(StaleLockException.class);
    assertThat(entries(docs.find(eq("_id", id)).first())).isEmpty();
    stale.close();
  }

  static Stream<Form> pausedForms() {
    return Stream.of(Form.values());
  }

  /**
   * A's process hands the lease on: A1 holds it (block of 32 tokens), A2 waits in the same
   * process. Both are frozen past the lease; B takes over with the next block and writes the
   * chaos way. A1's late write is refused; its release hands A2 the next token of the old
   * block without a round trip (the frozen clock still believes in the lease), and A2's claim
   * and write are refused too: the old block is wholly below B's.
   */
  @Test
  void aStaleLeaseHandedOnInsideThePausedProcessIsRefusedToo() throws Exception {
    FencedWriter writer = writer(false);
    String id = "handoff";
    docs.insertOne(seed(id));
    MongoLeaseLockService pausedProcess = frozenService();
    LockHandle first = pausedProcess.acquire("docs:" + id, Duration.ofSeconds(5));
    Document read = writer.claim(first, id).orElseThrow();
    CompletableFuture<LockHandle> second = CompletableFuture.supplyAsync(
        () -> pausedProcess.acquire("docs:" + id, Duration.ofSeconds(30)));
    awaitWaitingLocally(pausedProcess, "docs:" + id);
    pauseUntilTheServerSeesTheLeaseExpire(id);

    long newerToken;
    try (LockHandle newer = liveService().acquire("docs:" + id, Duration.ofSeconds(10))) {
      newerToken = newer.token();
      Document current = writer.claim(newer, id).orElseThrow();
      assertThat(write(writer, newer, id, current, "B", Form.REPLACE_CLAIMED, false))
          .isEqualTo(FencedWriter.Outcome.APPLIED);

      assertThatThrownBy(() -> write(writer, first, id, read, "A1", Form.REPLACE_CLAIMED, false))
          .isInstanceOf(StaleLockException.class);
      first.close(); // hands the stale lease on while B still holds the key

      LockHandle handedOn = second.get(20, TimeUnit.SECONDS);
      assertThat(handedOn.token()).as("the next token of the paused block")
          .isEqualTo(first.token() + 1).isLessThan(newerToken);
      assertThatThrownBy(() -> writer.claim(handedOn, id)).isInstanceOf(StaleLockException.class);
      assertThatThrownBy(() -> write(writer, handedOn, id, read, "A2", Form.UPDATE_ONE, false))
          .isInstanceOf(StaleLockException.class);
      assertThatThrownBy(() -> write(writer, handedOn, id, read, "A2", Form.REPLACE_CLAIMED, false))
          .isInstanceOf(StaleLockException.class);
      handedOn.close();
    }
    Document stored = docs.find(eq("_id", id)).first();
    assertThat(entries(stored)).containsExactly("B");
    assertThat(((Number) stored.get(Fencing.FIELD)).longValue()).isEqualTo(newerToken);
  }

  private FencedWriter writer(boolean versioned) {
    FencedWriter.Builder b = FencedWriter.builder(docs).fenceField(Fencing.FIELD)
        .strategy("mongo-lock");
    return versioned ? b.versionPolicy(VERSIONS).build() : b.build();
  }

  /** The paused holder: its clock never moves and nothing renews, so it never learns the loss. */
  private MongoLeaseLockService frozenService() {
    FakeTime frozen = new FakeTime();
    return keep(MongoLeaseLockService.builder(db, "locks").lease(LEASE).noRenewal()
        .handoffBatch(32).ticker(frozen.ticker()).noCleanup().build());
  }

  private MongoLeaseLockService liveService() {
    return keep(MongoLeaseLockService.builder(db, "locks").lease(Duration.ofSeconds(10))
        .noCleanup().build());
  }

  private MongoLeaseLockService keep(MongoLeaseLockService service) {
    services.add(service);
    return service;
  }

  /** Sleeps past the lease on the server's clock (expiry is judged there, by $$NOW). */
  private static void pauseUntilTheServerSeesTheLeaseExpire(String id) throws InterruptedException {
    Thread.sleep(LEASE.toMillis() * 2 + 50);
  }

  private static void awaitWaitingLocally(MongoLeaseLockService service, String key)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (service.waitingLocally(key) == 0) {
      assertThat(System.nanoTime()).as("the second caller queues").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** Writes entry {@code op} (+1) under {@code lock}, from {@code read}, in form {@code form}. */
  private static FencedWriter.Outcome write(FencedWriter writer, LockHandle lock, String id,
      Document read, String op, Form form, boolean versioned) {
    Document entry = new Document("op", op).append("amount", 1L);
    Bson update = Updates.combine(Updates.inc("balance", 1L), Updates.push("ledger", entry));
    return switch (form) {
      case REPLACE_CLAIMED -> writer.replaceOne(lock, id, changed(read, entry, versioned));
      case REPLACE_IF_BALANCE -> writer.replaceOne(lock, id, eq("balance", read.get("balance")),
          changed(read, entry, versioned));
      case UPDATE_ONE -> writer.updateOne(lock, id, update);
      case FIND_ONE_AND_UPDATE -> writer.findOneAndUpdate(lock, id, update).isPresent()
          ? FencedWriter.Outcome.APPLIED : FencedWriter.Outcome.NOT_FOUND;
    };
  }

  /**
   * As the chaos counter's change: the read document plus the entry. Unversioned it also bumps
   * the version itself, as chaos does; a versioned writer keeps the version read (it replaces
   * only that version and stores it plus one).
   */
  private static Document changed(Document read, Document entry, boolean versioned) {
    Document next = new Document(read);
    List<Object> ledger = new ArrayList<>(read.getList("ledger", Object.class));
    ledger.add(entry);
    next.put("ledger", ledger);
    next.put("balance", ((Number) read.get("balance")).longValue() + 1);
    if (!versioned) {
      next.put(VersionPolicy.DEFAULT_FIELD, ((Number) read.get(VersionPolicy.DEFAULT_FIELD)).longValue() + 1);
    }
    return next;
  }

  private static Document seed(String id) {
    return new Document("_id", id).append("balance", 20L).append("ledger", new ArrayList<>())
        .append(VersionPolicy.DEFAULT_FIELD, 0L);
  }

  private static List<String> entries(Document doc) {
    return doc.getList("ledger", Document.class).stream().map(d -> d.getString("op")).toList();
  }
}
