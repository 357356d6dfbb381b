package io.writeguard.app.readinfo;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.app.testing.TestRedis;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.InvalidPathException;
import io.writeguard.redis.RedisLockService;
import io.writeguard.testing.ReleaseFailingLocks;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import io.writeguard.update.Mutation;
import io.writeguard.update.VersionedUpdater;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shared mark-as-read strategy against the test MongoDB (and Redis for redis-lock). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MarkReadStrategiesTest {
  private final MongoDatabase db = TestMongo.freshDatabase("MarkRead");
  private final AtomicInteger collections = new AtomicInteger();
  private MongoLeaseLockService mongoLocks;
  private RedisLockService redisLocks;
  private ExecutorService pool;

  @BeforeAll
  void start() {
    mongoLocks = MongoLeaseLockService.builder(db, "locks").build();
    redisLocks = RedisLockService.builder().uri(TestRedis.uri())
        .keyPrefix("wg:test:markread:").build();
    pool = Executors.newFixedThreadPool(16);
  }

  @AfterAll
  void stop() {
    pool.shutdownNow();
    mongoLocks.close();
    redisLocks.close();
  }

  static List<String> all() {
    return MarkReadStrategies.NAMES;
  }

  static List<String> safe() {
    return MarkReadStrategies.NAMES.stream().filter(n -> !n.equals("naive")).toList();
  }

  static List<String> readChangeWrite() {
    return List.of("optimistic", "local-lock", "mongo-lock", "redis-lock", "adaptive");
  }

  /** The read-change-write strategies whose write is filtered on the version read. */
  static List<String> versionChecked() {
    return List.of("optimistic", "mongo-lock", "redis-lock", "adaptive");
  }

  /** A collection of its own with document "d1" of the seed's shape (k0/s0 has 3 items). */
  private MongoCollection<Document> freshCollection() {
    MongoCollection<Document> c = db.getCollection("docs" + collections.incrementAndGet());
    List<Document> items = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      items.add(new Document("read", new ArrayList<>()));
    }
    c.insertOne(new Document("_id", "d1").append("version", 0L)
        .append("infos", new Document("k0", new Document("s0", items))));
    return c;
  }

  private MarkReadDeps.Builder deps(MongoCollection<Document> c) {
    return MarkReadDeps.builder(c).mongoLocks(mongoLocks).redisLocks(redisLocks)
        .lockWait(Duration.ofSeconds(30));
  }

  private MarkReadStrategy strategy(String name, MongoCollection<Document> c) {
    return MarkReadStrategies.create(name, deps(c).build());
  }

  private static List<Object> read(MongoCollection<Document> c, int index) {
    Document doc = c.find(eq("_id", "d1")).first();
    List<?> items = doc.getEmbedded(List.of("infos", "k0", "s0"), List.class);
    return ((Document) items.get(index)).getList("read", Object.class);
  }

  /** The document without the locks' fence fields, which a fenced read raises by design. */
  private static Document data(MongoCollection<Document> c) {
    Document doc = c.find(eq("_id", "d1")).first();
    doc.remove("_fence");
    doc.remove("_fence_redis");
    return doc;
  }

  @ParameterizedTest
  @MethodSource("all")
  void aMarkAddsTheUserOnce(String name) {
    MongoCollection<Document> c = freshCollection();
    MarkResult r = strategy(name, c).mark("d1", "k0", "s0", 1, "alice");

    assertThat(r.strategy()).isEqualTo(name);
    assertThat(r.added()).isTrue();
    assertThat(r.attempts()).isEqualTo(1);
    assertThat(r.fencedRejections()).isZero();
    assertThat(read(c, 1)).containsExactly("alice");
    assertThat(read(c, 0)).isEmpty();
    // Serve's lease-lock strategies raise the version with the claim too: claim + replace.
    long version = claimMovesTheVersion(name) ? 2L : 1L;
    if (!name.equals("naive") && !name.equals("atomic")) {
      assertThat(r.version()).hasValue(version);
    }
    if (!name.equals("naive")) {
      assertThat(c.find(eq("_id", "d1")).first().getLong("version")).isEqualTo(version);
    }
  }

  @ParameterizedTest
  @MethodSource("all")
  void aRepeatedClickChangesNothing(String name) {
    MongoCollection<Document> c = freshCollection();
    MarkReadStrategy s = strategy(name, c);
    s.mark("d1", "k0", "s0", 2, "bob");
    Document before = data(c);

    MarkResult again = s.mark("d1", "k0", "s0", 2, "bob");

    assertThat(again.added()).isFalse();
    assertThat(read(c, 2)).containsExactly("bob");
    if (claimMovesTheVersion(name)) {
      // Its claim moved the fence and the version, as every fenced write must; nothing else.
      before.put("version", before.getLong("version") + 1);
    }
    if (!name.equals("naive")) {
      assertThat(data(c)).isEqualTo(before); // not even the version moved
    }
  }

  /** Serve's lease-lock strategies: the claim raises the version with the fence. */
  private static boolean claimMovesTheVersion(String name) {
    return name.equals("mongo-lock") || name.equals("redis-lock");
  }

  @ParameterizedTest
  @MethodSource("all")
  void aMissingDocumentIsATypedErrorAndNothingIsWritten(String name) {
    MongoCollection<Document> c = freshCollection();
    assertThatThrownBy(() -> strategy(name, c).mark("nope", "k0", "s0", 0, "carol"))
        .isInstanceOf(NoSuchDocumentException.class)
        .hasMessageContaining("_id=nope")
        .hasMessageContaining("infos.k0.s0.0");
    assertThat(c.countDocuments()).isEqualTo(1);
    assertThat(c.countDocuments(eq("_id", "nope"))).isZero();
  }

  @ParameterizedTest(name = "{0} {1}.{2}.{3}")
  @CsvSource({
      "naive, k0, s0, 3", "naive, k9, s0, 0", "naive, k0, s9, 0",
      "atomic, k0, s0, 3", "atomic, k9, s0, 0", "atomic, k0, s9, 0",
      "optimistic, k0, s0, 3", "optimistic, k9, s0, 0", "optimistic, k0, s9, 0",
      "local-lock, k0, s0, 3", "local-lock, k9, s0, 0", "local-lock, k0, s9, 0",
      "mongo-lock, k0, s0, 3", "mongo-lock, k9, s0, 0", "mongo-lock, k0, s9, 0",
      "redis-lock, k0, s0, 3", "redis-lock, k9, s0, 0", "redis-lock, k0, s9, 0",
      "adaptive, k0, s0, 3", "adaptive, k9, s0, 0", "adaptive, k0, s9, 0",
  })
  void aMissingItemIsATypedErrorAndNothingIsWritten(String name, String key, String skey,
      int index) {
    MongoCollection<Document> c = freshCollection();
    Document before = data(c);
    assertThatThrownBy(() -> strategy(name, c).mark("d1", key, skey, index, "dave"))
        .isInstanceOf(NoSuchItemException.class)
        .hasMessageContaining("infos." + key + "." + skey + "." + index);
    if (claimMovesTheVersion(name)) {
      before.put("version", 1L); // the claim moved the fence and the version, nothing else
    }
    assertThat(data(c)).isEqualTo(before); // no padded list, no new key, same version
  }

  @ParameterizedTest(name = "{0} [{1}] [{2}] {3}")
  @CsvSource(delimiter = '|', value = {
      "naive      | $where | s0   | 0",
      "atomic     | $where | s0   | 0",
      "atomic     | k0     | a.b  | 0",
      "atomic     | ''     | s0   | 0",
      "atomic     | k0     | s0   | -1",
      "optimistic | k0.s0  | s0   | 0",
      "local-lock | k0     | $[]  | 0",
      "mongo-lock | k0     | s0   | -1",
      "redis-lock | $set   | s0   | 0",
      "adaptive   | k0     | s0.1 | 0",
  })
  void badPathSegmentsAreRefusedAndNothingIsWritten(String name, String key, String skey,
      int index) {
    MongoCollection<Document> c = freshCollection();
    Document before = data(c);
    assertThatThrownBy(() -> strategy(name, c).mark("d1", key, skey, index, "eve"))
        .isInstanceOf(InvalidPathException.class);
    assertThat(data(c)).isEqualTo(before);
  }

  @Test
  void aNulInASegmentIsRefused() {
    MongoCollection<Document> c = freshCollection();
    assertThatThrownBy(() -> strategy("atomic", c).mark("d1", "k\u00000", "s0", 0, "eve"))
        .isInstanceOf(InvalidPathException.class)
        .hasMessageContaining("NUL");
  }

  @ParameterizedTest
  @MethodSource("safe")
  void sixteenUsersMarkingOneDocumentAtOnceAreAllThere(String name) throws Exception {
    MongoCollection<Document> c = freshCollection();
    MarkReadStrategy s = strategy(name, c);
    int users = 16;
    CyclicBarrier start = new CyclicBarrier(users);
    List<Future<MarkResult>> done = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      String user = "u" + u;
      int item = u % 3;
      done.add(pool.submit(() -> {
        start.await(10, TimeUnit.SECONDS);
        return s.mark("d1", "k0", "s0", item, user);
      }));
    }
    for (Future<MarkResult> f : done) {
      assertThat(f.get(60, TimeUnit.SECONDS).added()).isTrue();
    }
    List<Object> all = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      all.addAll(read(c, i));
    }
    assertThat(all).hasSize(users);
    for (int u = 0; u < users; u++) {
      assertThat(read(c, u % 3)).contains("u" + u);
    }
  }

  @ParameterizedTest
  @MethodSource("versionChecked")
  void aWriterThatBypassesTheLockMovesTheVersionAndTheMarkReadsAgain(String name) {
    MongoCollection<Document> c = freshCollection();
    AtomicBoolean once = new AtomicBoolean();
    AtomicInteger conflicts = new AtomicInteger();
    MarkReadStrategy s = MarkReadStrategies.create(name, deps(c)
        .listener(new WriteGuardListener() {
          @Override
          public void onConflict(OperationScope scope, Object key, int attempt) {
            conflicts.incrementAndGet();
          }
        })
        .betweenReadAndWrite(() -> {
          if (once.compareAndSet(false, true)) {
            // An atomic mark (no lock) lands between this strategy's read and its write.
            MarkReadStrategies.create("atomic", MarkReadDeps.builder(c).build())
                .mark("d1", "k0", "s0", 0, "intruder");
          }
        })
        .build());

    MarkResult r = s.mark("d1", "k0", "s0", 0, "frank");

    assertThat(r.attempts()).isEqualTo(2);
    assertThat(conflicts).hasValue(1);
    assertThat(read(c, 0)).containsExactlyInAnyOrder("intruder", "frank");
    // Lease locks: claim, intruder, (replace missed), claim again, replace.
    assertThat(r.version()).hasValue(claimMovesTheVersion(name) ? 4L : 2L);
  }

  @Test
  void localLockIsTheSeedsFixAndErasesAWriterItDoesNotLockOut() {
    // The seed's replace by _id: a mark made between its find and its save (by another
    // process, or a writer that takes no lock) is erased. This is why local-lock is correct in
    // one process only.
    MongoCollection<Document> c = freshCollection();
    AtomicBoolean once = new AtomicBoolean();
    MarkReadStrategy s = MarkReadStrategies.create("local-lock", deps(c)
        .betweenReadAndWrite(() -> {
          if (once.compareAndSet(false, true)) {
            MarkReadStrategies.create("atomic", MarkReadDeps.builder(c).build())
                .mark("d1", "k0", "s0", 0, "intruder");
          }
        })
        .build());

    MarkResult r = s.mark("d1", "k0", "s0", 0, "frank");

    assertThat(r.attempts()).isEqualTo(1);
    assertThat(read(c, 0)).containsExactly("frank");
  }

  @Test
  void aVersionedReplaceBetweenAMongoLockClaimAndItsWriteNeitherLowersTheFenceNorLosesTheMark()
      throws Exception {
    // Serve's mode (versionFilterUnderLock on): lock strategies share documents with versioned
    // writers. A VersionedUpdater reads d1 (no _fence yet); a mongo-lock holder (token 7)
    // claims d1 inside that mutator; the mutator then replaces d1 with what it read. The claim
    // did not move the version, so the replace matched and wrote the old fence back: the
    // holder's document had _fence lowered under it, and a stale holder could write again.
    MongoCollection<Document> c = freshCollection();
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch replaced = new CountDownLatch(1);
    AtomicReference<Object> fenceAfterReplace = new AtomicReference<>("not seen");
    AtomicInteger holderReads = new AtomicInteger();
    MarkReadStrategy holder = MarkReadStrategies.create("mongo-lock", MarkReadDeps.builder(c)
        .mongoLocks(new StubLocks(7, 8, 9))
        .betweenReadAndWrite(() -> {
          if (holderReads.incrementAndGet() == 1) {
            claimed.countDown();
            awaitOrFail(replaced);
            fenceAfterReplace.set(c.find(eq("_id", "d1")).first().get("_fence"));
          }
        })
        .build());
    AtomicInteger mutatorCalls = new AtomicInteger();
    VersionedUpdater replacing = VersionedUpdater.builder(c).build();
    AtomicReference<Future<MarkResult>> marked = new AtomicReference<>();
    try {
      replacing.updateOne("d1", current -> {
        if (mutatorCalls.incrementAndGet() == 1) {
          // The holder claims between our read and our write.
          marked.set(pool.submit(() -> holder.mark("d1", "k0", "s0", 0, "holder")));
          awaitOrFail(claimed);
        }
        Document next = new Document(current);
        next.put("note", "replaced");
        return Mutation.replace(next);
      });
    } finally {
      replaced.countDown();
    }
    MarkResult r = marked.get().get(30, TimeUnit.SECONDS);

    assertThat(fenceAfterReplace.get()).as("_fence right after the versioned replace")
        .isEqualTo(7L);
    assertThat(mutatorCalls).as("the claim moved the version: the replace re-read").hasValue(2);
    assertThat(r.added()).isTrue();
    assertThat(read(c, 0)).containsExactly("holder");
    assertThat(c.find(eq("_id", "d1")).first().getString("note")).isEqualTo("replaced");
  }

  private static void awaitOrFail(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out waiting for the other writer");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void aFencedWriteRefusedAsStaleTakesTheLockAgain() {
    MongoCollection<Document> c = freshCollection();
    // A newer holder (token 100) has claimed the document; our first lock hands out token 7.
    c.updateOne(eq("_id", "d1"), Updates.set("_fence", 100L));
    LockService tokens = new StubLocks(7, 101);
    AtomicInteger rejections = new AtomicInteger();
    MarkReadStrategy s = MarkReadStrategies.create("mongo-lock", MarkReadDeps.builder(c)
        .mongoLocks(tokens)
        .listener(new WriteGuardListener() {
          @Override
          public void onFencedRejection(OperationScope scope, Object key, long token) {
            rejections.incrementAndGet();
          }
        })
        .build());

    MarkResult r = s.mark("d1", "k0", "s0", 1, "grace");

    assertThat(r.fencedRejections()).isEqualTo(1);
    assertThat(rejections).hasValue(1);
    assertThat(read(c, 1)).containsExactly("grace");
    assertThat(c.find(eq("_id", "d1")).first().getLong("_fence")).isEqualTo(101L);
  }

  @Test
  void aLockReleaseThatFailsAfterTheMarkIsWrittenDoesNotReportTheMarkAsFailed() {
    // A lease lock's release is a write to its backend and can fail after the mark was stored;
    // reporting that as a failed mark would make a client retry a write that stands.
    MongoCollection<Document> c = freshCollection();
    ReleaseFailingLocks locks = new ReleaseFailingLocks();
    MarkReadStrategy s = LockedMarkRead.fenced("mongo-lock", deps(c).build(), locks);
    MarkResult result = s.mark("d1", "k0", "s0", 1, "alice");
    assertThat(result.added()).isTrue();
    assertThat(locks.releases()).isEqualTo(1);
    assertThat(read(c, 1)).containsExactly("alice");
  }

  @Test
  void unknownNamesAreRefusedListingTheValidOnes() {
    MongoCollection<Document> c = freshCollection();
    assertThatThrownBy(() -> MarkReadStrategies.create("pessimistic", deps(c).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'pessimistic'")
        .hasMessageContaining("naive, atomic, optimistic, local-lock, mongo-lock, redis-lock,"
            + " adaptive");
  }

  @Test
  void lockStrategiesWithoutTheirLockServiceAreRefused() {
    MarkReadDeps bare = MarkReadDeps.builder(freshCollection()).build();
    assertThatThrownBy(() -> MarkReadStrategies.create("redis-lock", bare))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'redis-lock' needs a Redis lock service")
        .hasMessageContaining("--redis-uri");
    assertThatThrownBy(() -> MarkReadStrategies.create("mongo-lock", bare))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'mongo-lock' needs a MongoDB lease lock service");
    assertThat(MarkReadStrategies.create("local-lock", bare).name()).isEqualTo("local-lock");
  }

  @Test
  void aBlankUserIsRefused() {
    MarkReadStrategy s = strategy("atomic", freshCollection());
    assertThatThrownBy(() -> s.mark("d1", "k0", "s0", 0, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("userId");
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "17, 17"})
  void anIndexGivenAsTextIsParsedStrictly(String text, int index) {
    assertThat(ReadItem.parse("d1", "k", "s", text).index()).isEqualTo(index);
  }

  @ParameterizedTest
  @CsvSource({"01", "-1", "+1", "1e3", "' 1'", "x"})
  void aMalformedIndexIsRefused(String text) {
    assertThatThrownBy(() -> ReadItem.parse("d1", "k", "s", text))
        .isInstanceOf(InvalidPathException.class);
  }
}
