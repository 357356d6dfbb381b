package io.writeguard.app.lab.readinfo;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.app.lab.StrategyStats;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.ReadInfoClient;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.ReadInfoLayout;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.ReadInfoRun;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.AtomicReadInfo;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.NaiveReadInfo;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.OptimisticReadInfo;
import io.writeguard.monitor.OperationScope;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadInfoScenarioTest {
  private final MongoCollection<Document> coll =
      TestMongo.freshDatabase("ReadInfo").getCollection("docs");
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private ReadInfoRun start(int clients, int docs) {
    return (ReadInfoRun) new ReadInfoScenario().start(coll, new ScenarioSettings(clients, docs, 1));
  }

  private StrategyContext context(StrategyStats stats) {
    return new StrategyContext(coll, stats, new OperationScope("docs", "test"), Ticker.system());
  }

  private static Mark mark(int client, String key, String skey, int index) {
    return mark(client, key, skey, index, 0);
  }

  /** Client {@code client}'s click number {@code repeat + 1} on the item. */
  private static Mark mark(int client, String key, String skey, int index, int repeat) {
    int item = ReadInfoLayout.item(ReadInfoLayout.KEYS.indexOf(key), ReadInfoLayout.SKEYS.indexOf(skey), index);
    return new Mark("g0-d0", key, skey, index, ReadInfoLayout.user(client, repeat),
        ReadInfoLayout.code(0, 0, item, client, repeat));
  }

  @Test
  void naiveLosesTheFirstMarkWhenBothClientsReadBeforeEitherWrites() throws Exception {
    ReadInfoRun run = start(2, 1);
    ReadInfoClient a = (ReadInfoClient) run.client(0, 1);
    ReadInfoClient b = (ReadInfoClient) run.client(1, 2);
    CyclicBarrier bothRead = new CyclicBarrier(2);
    NaiveReadInfo naive = new NaiveReadInfo(context(new StrategyStats()), () -> {
      try {
        bothRead.await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Mark ma = mark(0, "k0", "s0", 0);
    Mark mb = mark(1, "k1", "s1", 3);

    Future<?> fa = pool.submit(() -> naive.apply(ma));
    Future<?> fb = pool.submit(() -> naive.apply(mb));
    fa.get(20, TimeUnit.SECONDS);
    fb.get(20, TimeUnit.SECONDS);
    a.acknowledged(ma);
    b.acknowledged(mb);

    // Both replaces were acknowledged; the second one wrote back a copy without the first mark.
    Verification v = run.verify(List.of(a, b));
    assertThat(v.expected()).isEqualTo(2);
    assertThat(v.visible()).isEqualTo(1);
    assertThat(v.lost()).isEqualTo(1);
  }

  @Test
  void optimisticKeepsBothMarksWhenBothClientsReadBeforeEitherWrites() throws Exception {
    ReadInfoRun run = start(2, 1);
    ReadInfoClient a = (ReadInfoClient) run.client(0, 1);
    ReadInfoClient b = (ReadInfoClient) run.client(1, 2);
    CyclicBarrier bothRead = new CyclicBarrier(2);
    ThreadLocal<Boolean> firstAttempt = ThreadLocal.withInitial(() -> true);
    StrategyStats stats = new StrategyStats();
    OptimisticReadInfo optimistic = new OptimisticReadInfo(context(stats),
        OptimisticReadInfo.POLICY, () -> {
          if (firstAttempt.get()) { // only the first attempts meet; the retry goes alone
            firstAttempt.set(false);
            try {
              bothRead.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
        });
    // The same item, so without the version check the second write would erase the first.
    Mark ma = mark(0, "k1", "s0", 2);
    Mark mb = mark(1, "k1", "s0", 2);
    Future<?> fa = pool.submit(() -> optimistic.apply(ma));
    Future<?> fb = pool.submit(() -> optimistic.apply(mb));
    fa.get(20, TimeUnit.SECONDS);
    fb.get(20, TimeUnit.SECONDS);
    a.acknowledged(ma);
    b.acknowledged(mb);

    assertThat(run.verify(List.of(a, b))).isEqualTo(new Verification(2, 2));
    assertThat(stats.conflicts()).isEqualTo(1);
    assertThat(stats.retries()).isEqualTo(1);
    assertThat(stats.attempts()).isEqualTo(3);
    Document doc = coll.find(eq("_id", "g0-d0")).first();
    assertThat(doc.getLong("version")).isEqualTo(2L);
  }

  @Test
  void atomicKeepsBothMarksUnderTheSameInterleaving() throws Exception {
    ReadInfoRun run = start(2, 1);
    ReadInfoClient a = (ReadInfoClient) run.client(0, 1);
    ReadInfoClient b = (ReadInfoClient) run.client(1, 2);
    AtomicReadInfo atomic = new AtomicReadInfo(context(new StrategyStats()));
    CyclicBarrier together = new CyclicBarrier(2);
    Mark ma = mark(0, "k0", "s0", 0);
    Mark mb = mark(1, "k0", "s0", 0);
    List<Future<?>> fs = new ArrayList<>();
    for (Mark m : List.of(ma, mb)) {
      fs.add(pool.submit(() -> {
        together.await(10, TimeUnit.SECONDS);
        atomic.apply(m);
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get(20, TimeUnit.SECONDS);
    }
    a.acknowledged(ma);
    b.acknowledged(mb);

    assertThat(run.verify(List.of(a, b))).isEqualTo(new Verification(2, 2));
    Document doc = coll.find(eq("_id", "g0-d0")).first();
    assertThat(doc.getEmbedded(List.of("infos", "k0", "s0"), List.class)).hasSize(4);
  }

  @Test
  void aMarkLostAndClickedAgainStaysCountedAsLost() throws Exception {
    // The bug: codes of repeated clicks were merged, so a mark naive erased and the same user
    // re-clicked counted as present, and its loss vanished from lost_updates.
    ReadInfoRun run = start(2, 1);
    ReadInfoClient a = (ReadInfoClient) run.client(0, 1);
    ReadInfoClient b = (ReadInfoClient) run.client(1, 2);
    CyclicBarrier bothRead = new CyclicBarrier(2);
    CountDownLatch firstWritten = new CountDownLatch(1);
    ThreadLocal<Boolean> meet = ThreadLocal.withInitial(() -> true);
    ThreadLocal<Boolean> writesLast = ThreadLocal.withInitial(() -> false);
    NaiveReadInfo naive = new NaiveReadInfo(context(new StrategyStats()), () -> {
      if (meet.get()) {
        meet.set(false);
        try {
          bothRead.await(10, TimeUnit.SECONDS);
          if (writesLast.get()) {
            firstWritten.await(10, TimeUnit.SECONDS);
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    });
    Mark first = mark(0, "k2", "s1", 1);
    Mark other = mark(1, "k0", "s0", 0);
    Future<?> fa = pool.submit(() -> {
      naive.apply(first);
      firstWritten.countDown();
    });
    Future<?> fb = pool.submit(() -> {
      writesLast.set(true);
      naive.apply(other); // writes back the copy it read, without the first mark
    });
    fa.get(20, TimeUnit.SECONDS);
    fb.get(20, TimeUnit.SECONDS);
    a.acknowledged(first);
    b.acknowledged(other);

    // The same user clicks the same item again, alone: its second mark is a mark of its own.
    Mark again = mark(0, "k2", "s1", 1, 1);
    pool.submit(() -> naive.apply(again)).get(20, TimeUnit.SECONDS);
    a.acknowledged(again);

    Verification v = run.verify(List.of(a, b));
    assertThat(v.expected()).isEqualTo(3);
    assertThat(v.visible()).isEqualTo(2);
    assertThat(v.lost()).isEqualTo(1);
    List<?> k2s1 = coll.find(eq("_id", "g0-d0")).first()
        .getEmbedded(List.of("infos", "k2", "s1"), List.class);
    assertThat(((Document) k2s1.get(1)).getList("read", String.class)).contains("u0r1");
  }

  @Test
  void repeatedClicksOfOneClientAreMarksOfTheirOwn() {
    // 4 clients, 1 document: 64 operations per generation over 32 items, so one client drawing
    // 64 clicks repeats items; every click must still have a code of its own.
    ReadInfoRun run = start(4, 1);
    ReadInfoClient c = (ReadInfoClient) run.client(2, 5);
    Set<Long> codes = new HashSet<>();
    Set<String> users = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      Mark m = c.next();
      assertThat(codes.add(m.code())).as("code of click %d", i).isTrue();
      users.add(m.user());
    }
    assertThat(users).contains("u2", "u2r1");
  }

  @Test
  void aMarkInTheDocumentsThatWasNeverAcknowledgedIsNotCountedAsVisible() {
    ReadInfoRun run = start(1, 1);
    ReadInfoClient a = (ReadInfoClient) run.client(0, 1);
    new AtomicReadInfo(context(new StrategyStats())).apply(mark(0, "k3", "s0", 2));
    // Applied but (as after a timeout) never acknowledged: not expected, so not "visible".
    assertThat(run.verify(List.of(a))).isEqualTo(new Verification(0, 0));
  }

  @Test
  void operationsMoveToFreshDocumentsEverySixteenOperationsPerClient() {
    int clients = 2;
    ReadInfoRun run = start(clients, 3);
    ReadInfoClient c = (ReadInfoClient) run.client(0, 7);
    Set<String> ids = new HashSet<>();
    int perGeneration = ReadInfoRun.OPS_PER_CLIENT_PER_GENERATION * clients;
    for (int i = 0; i < perGeneration * 3; i++) {
      Mark m = c.next();
      ids.add(m.docId());
      assertThat(m.docId()).startsWith("g" + i / perGeneration + "-d");
      // Its document exists before the operation is sent.
      assertThat(coll.countDocuments(eq("_id", m.docId()))).isEqualTo(1);
    }
    assertThat(ids).allMatch(id -> id.matches("g[0-2]-d[0-2]"));
  }

  @Test
  void everyClientStreamIsTheSameForTheSameSeed() {
    ReadInfoRun one = start(4, 4);
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    ReadInfoClient c1 = (ReadInfoClient) one.client(3, 99);
    ReadInfoClient c2 = (ReadInfoClient) one.client(3, 99);
    for (int i = 0; i < 20; i++) {
      Mark a = c1.next();
      Mark b = c2.next();
      first.add(a.key() + a.skey() + a.index() + a.docId().substring(a.docId().indexOf('-')));
      second.add(b.key() + b.skey() + b.index() + b.docId().substring(b.docId().indexOf('-')));
    }
    assertThat(first).isEqualTo(second);
    assertThat(new HashSet<>(first)).hasSizeGreaterThan(5);
  }
}
