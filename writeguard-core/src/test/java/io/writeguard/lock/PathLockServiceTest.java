package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.path.FieldPath;
import io.writeguard.path.InvalidPathException;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PathLockServiceTest extends InProcessLockContract {
  private static final Duration SECOND = Duration.ofSeconds(1);

  @Override
  protected LockService create(LeaseConfig config) {
    return PathLockService.builder().listener(config.listener()).build();
  }

  private static List<FieldPath> paths(String... dotted) {
    return Arrays.stream(dotted).map(FieldPath::parse).toList();
  }

  private static boolean free(PathLockService locks, String doc, String... dotted) {
    Optional<PathLockHandle> handle = locks.tryAcquire(doc, paths(dotted));
    handle.ifPresent(PathLockHandle::close);
    return handle.isPresent();
  }

  @Test
  void aPathConflictsWithItsAncestorsAndDescendantsOnly() {
    PathLockService locks = PathLockService.create();
    try (PathLockHandle held = locks.acquire("doc", FieldPath.parse("infos.k.s.0"), SECOND)) {
      assertThat(free(locks, "doc", "infos.k.s.0")).as("same path").isFalse();
      assertThat(free(locks, "doc", "infos.k")).as("ancestor").isFalse();
      assertThat(free(locks, "doc", "infos")).as("root ancestor").isFalse();
      assertThat(free(locks, "doc", "infos.k.s.0.read")).as("descendant").isFalse();
      assertThat(locks.tryAcquire("doc")).as("whole document").isEmpty();
      assertThat(locks.tryAcquire("doc", List.of(FieldPath.of("infos", "k", "s").index(0))))
          .as("same path built with index()").isEmpty();

      assertThat(free(locks, "doc", "infos.k.s.1")).as("sibling").isTrue();
      assertThat(free(locks, "doc", "infos.k.s.01")).as("string prefix, not segment prefix").isTrue();
      assertThat(free(locks, "doc", "infos.k.s.1.read")).as("sibling's child").isTrue();
      assertThat(free(locks, "doc", "infos.j")).as("uncle").isTrue();
      assertThat(free(locks, "doc", "infosx")).isTrue();
      assertThat(free(locks, "other", "infos.k")).as("another document").isTrue();
      assertThat(locks.tryAcquire("other")).hasValueSatisfying(LockHandle::close);
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void aLockOnSeveralPathsIsAllOrNothing() {
    PathLockService locks = PathLockService.create();
    try (PathLockHandle b = locks.acquire("doc", FieldPath.parse("b"), SECOND)) {
      assertThat(locks.tryAcquire("doc", paths("a", "b.c"))).isEmpty();
      assertThat(free(locks, "doc", "a")).as("a was not half-taken").isTrue();
    }
    try (PathLockHandle both = locks.acquire("doc", paths("b", "a"), SECOND)) {
      assertThat(free(locks, "doc", "a.x")).isFalse();
      assertThat(free(locks, "doc", "b.y")).isFalse();
      assertThat(free(locks, "doc", "c")).isTrue();
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void requestedPathsAreReducedToTheFewestThatCoverThem() {
    PathLockService locks = PathLockService.create();
    try (PathLockHandle h = locks.acquire("doc", paths("c", "a.b", "a", "a.b.c", "c", "b.x"), SECOND)) {
      assertThat(h.paths()).containsExactlyElementsOf(paths("a", "b.x", "c"));
      assertThat(h.isWholeDocument()).isFalse();
      assertThat(h.key()).isEqualTo("doc");
    }
    try (PathLockHandle whole = locks.acquire("doc", SECOND)) {
      assertThat(whole.isWholeDocument()).isTrue();
      assertThat(whole.paths()).isEmpty();
    }
  }

  @Test
  void badPathsAreRefusedNamingTheValue() {
    PathLockService locks = PathLockService.create();
    assertThatThrownBy(() -> locks.acquire("doc", List.of(), SECOND))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("paths must name at least one field path, was []");
    assertThatThrownBy(() -> locks.tryAcquire("doc", Arrays.asList(FieldPath.parse("a"), null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("paths[1] is null");
    assertThatThrownBy(() -> locks.acquire(" ", FieldPath.parse("a"), SECOND))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("documentKey must not be blank, was ' '");
    assertThatThrownBy(() -> locks.acquire("doc", FieldPath.parse("a"), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("waitTimeout must be positive, was PT0S");
    // Dotted strings go through FieldPath, which names the bad segment.
    assertThatThrownBy(() -> FieldPath.parse("infos..k")).isInstanceOf(InvalidPathException.class);
    assertThat(locks.size()).isZero();
  }

  @Test
  void aWaitingWholeDocumentLockIsNotStarvedByLaterPathLocks() throws Exception {
    PathLockService locks = PathLockService.create();
    PathLockHandle small = locks.acquire("doc", FieldPath.parse("a.x"), SECOND);
    CountDownLatch release = new CountDownLatch(1);
    Future<Long> big = threads.submit(() -> {
      try (PathLockHandle whole = locks.acquire("doc", Duration.ofSeconds(30))) {
        release.await();
        return whole.token();
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 1);

    // Free of the holder, but each conflicts with the whole-document request waiting before it.
    assertThat(free(locks, "doc", "a.y")).isFalse();
    assertThat(free(locks, "doc", "b")).isFalse();
    small.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 0);
    assertThat(free(locks, "doc", "b")).as("the whole document is held now").isFalse();
    release.countDown();
    assertThat(big.get(10, TimeUnit.SECONDS)).isGreaterThan(small.token());
    assertThat(locks.size()).isZero();
  }

  @Test
  void aRequestThatConflictsWithNothingAheadOfItGoesFirst() throws Exception {
    PathLockService locks = PathLockService.create();
    PathLockHandle holder = locks.acquire("doc", FieldPath.parse("a.x"), SECOND);
    Future<?> waiter = threads.submit(() -> locks.acquire("doc", FieldPath.parse("a"), Duration.ofSeconds(30)).close());
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 1);
    assertThat(free(locks, "doc", "b")).isTrue();
    assertThat(free(locks, "doc", "a.y")).isFalse();
    holder.close();
    waiter.get(10, TimeUnit.SECONDS);
    assertThat(locks.size()).isZero();
  }

  @Test
  void oneReleaseGrantsEveryCompatibleWaiterAtOnce() throws Exception {
    PathLockService locks = PathLockService.create();
    PathLockHandle whole = locks.acquire("doc", SECOND);
    CountDownLatch allHold = new CountDownLatch(3);
    List<Future<?>> futures = new ArrayList<>();
    for (String path : List.of("a", "b", "c.d")) {
      futures.add(threads.submit(() -> {
        try (PathLockHandle h = locks.acquire("doc", FieldPath.parse(path), Duration.ofSeconds(30))) {
          allHold.countDown();
          assertThat(allHold.await(10, TimeUnit.SECONDS)).as("held together").isTrue();
        }
        return null;
      }));
      int queued = futures.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == queued);
    }
    whole.close();
    for (Future<?> f : futures) {
      f.get(20, TimeUnit.SECONDS);
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void aWaiterThatTimesOutUnblocksTheRequestsQueuedBehindIt() throws Exception {
    FakeTime time = new FakeTime();
    PathLockService locks = PathLockService.builder().ticker(time.ticker()).build();
    PathLockHandle holder = locks.acquire("doc", FieldPath.parse("a.x"), SECOND);
    Future<?> impatient = threads.submit(() -> locks.acquire("doc", FieldPath.parse("a"), Duration.ofMillis(50)));
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 1);
    // a.y is free of the holder, but waits behind the request for "a".
    Future<PathLockHandle> behind = threads.submit(() -> locks.acquire("doc", FieldPath.parse("a.y"), Duration.ofHours(1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 2);

    time.advance(Duration.ofMillis(50));

    assertThatThrownBy(() -> impatient.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(LockTimeoutException.class)
        .hasMessage("local lock 'doc [a]' not acquired within 50ms (2 waiting in this process)");
    PathLockHandle got = behind.get(10, TimeUnit.SECONDS);
    assertThat(holder.isReleased()).isFalse();
    got.close();
    holder.close();
    assertThat(locks.size()).isZero();
  }

  @Test
  void aGrantAtTheInstantTheTimeoutFiresGivesTheWaiterThePaths() throws Exception {
    GateTicker ticker = new GateTicker();
    PathLockService locks = PathLockService.builder().ticker(ticker).build();
    PathLockHandle holder = locks.acquire("doc", FieldPath.parse("a"), SECOND);
    Thread[] waiterThread = new Thread[1];
    Future<PathLockHandle> waiter = threads.submit(() -> {
      waiterThread[0] = Thread.currentThread();
      return locks.acquire("doc", FieldPath.parse("a.b"), Duration.ofMillis(50));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 1);

    ticker.stopInNextRead(waiterThread[0]);
    ticker.advance(Duration.ofMillis(50));
    holder.close();
    ticker.open();

    PathLockHandle got = waiter.get(10, TimeUnit.SECONDS);
    assertThat(free(locks, "doc", "a")).isFalse();
    got.close();
    assertThat(locks.size()).isZero();
  }

  @Test
  void aGrantAtTheInstantOfAnInterruptIsPassedOn() throws Exception {
    GateTicker ticker = new GateTicker();
    PathLockService locks = PathLockService.builder().ticker(ticker).build();
    PathLockHandle holder = locks.acquire("doc", FieldPath.parse("a"), SECOND);
    Thread[] firstThread = new Thread[1];
    Future<PathLockHandle> first = threads.submit(() -> {
      firstThread[0] = Thread.currentThread();
      return locks.acquire("doc", Duration.ofMinutes(1));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 1);
    Future<?> second = threads.submit(() -> locks.acquire("doc", FieldPath.parse("b"), Duration.ofMinutes(1)).close());
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting("doc") == 2);

    ticker.stopInNextRead(firstThread[0]);
    firstThread[0].interrupt();
    holder.close();
    ticker.open();

    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .cause().isInstanceOf(WriteGuardInterruptedException.class).hasMessageContaining("doc");
    second.get(10, TimeUnit.SECONDS);
    assertThat(locks.size()).isZero();
  }

  @Test
  void busyDocumentsAreForgottenWhenTheLastHolderLeaves() {
    PathLockService locks = PathLockService.create();
    List<FieldPath> slots = List.of(FieldPath.parse("infos.k.s.0"), FieldPath.parse("infos.k.s.1"));
    List<FieldPath> other = paths("other");
    int peak = 0;
    for (int i = 0; i < 100_000; i++) {
      String doc = "doc-" + i;
      try (PathLockHandle a = locks.acquire(doc, slots.get(i % 2), SECOND);
          PathLockHandle b = locks.tryAcquire(doc, other).orElseThrow()) {
        peak = Math.max(peak, locks.size());
      }
    }
    assertThat(peak).isEqualTo(1);
    assertThat(locks.size()).isZero();
  }
}
