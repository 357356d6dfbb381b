package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.lock.LocalLockService;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The settings the updaters' builders share ({@link UpdaterBuilder}): each is checked once, with
 * the same message whichever builder sets it; each updater keeps its own defaults; and every
 * setting reaches the updater built.
 */
class UpdaterBuilderTest {
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("UpdaterBuilder").getCollection("docs");
  private final LocalLockService locks = LocalLockService.create();

  /** The builders that are an {@link UpdaterBuilder}, and the updater each builds. */
  enum Kind {
    VERSIONED(t -> VersionedUpdater.builder(t.docs), b -> ((VersionedUpdater.Builder) b).build()),
    LOCKED(t -> LockedUpdater.builder(t.docs, t.locks), b -> ((LockedUpdater.Builder) b).build()),
    LOCKED_FROM_VERSIONED(
        t -> LockedUpdater.builder(VersionedUpdater.builder(t.docs).build(), t.locks),
        b -> ((LockedUpdater.Builder) b).build());

    final Function<UpdaterBuilderTest, UpdaterBuilder<?>> builder;
    final Function<UpdaterBuilder<?>, Object> build;

    Kind(Function<UpdaterBuilderTest, UpdaterBuilder<?>> builder,
        Function<UpdaterBuilder<?>, Object> build) {
      this.builder = builder;
      this.build = build;
    }
  }

  private static UpdaterSettings keptBy(Object updater) {
    return updater instanceof VersionedUpdater v ? v.settings()
        : ((LockedUpdater) updater).settings();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everySettingIsCheckedWhenSetAndNamedInItsMessage(Kind kind) {
    UpdaterBuilder<?> b = kind.builder.apply(this);
    // A null is named by the parameter alone (Objects.requireNonNull), the rest with the value.
    Map<ThrowingCallable, String> refusals = new LinkedHashMap<>();
    refusals.put(() -> b.versionPolicy(null), "versionPolicy");
    refusals.put(() -> b.retryPolicy(null), "retryPolicy");
    refusals.put(() -> b.listener(null), "listener");
    refusals.put(() -> b.ticker(null), "ticker");
    refusals.put(() -> b.sleeper(null), "sleeper");
    refusals.put(() -> b.random(null), "random");
    refusals.put(() -> b.strategyName(" "), "strategyName must not be blank, was ' '");
    refusals.put(() -> b.strategyName(null), "strategyName must not be blank, was null");
    refusals.put(() -> b.maxBatchSize(0), "maxBatchSize must be >= 1, was 0");
    refusals.forEach((call, message) -> assertThatThrownBy(call)
        .isInstanceOf(message.contains(" ") ? IllegalArgumentException.class
            : NullPointerException.class)
        .hasMessage(message));
    // A refused value is not kept: the builder still builds with what it had.
    assertThat(keptBy(kind.build.apply(b)).maxBatchSize())
        .isEqualTo(UpdaterBuilder.DEFAULT_MAX_BATCH);
  }

  @Test
  void theAdaptiveBuildersLockedRouteSettingsAreCheckedByTheSameChecks() {
    VersionedUpdater updater = VersionedUpdater.builder(docs).build();
    AdaptiveUpdater.Builder adaptive = AdaptiveUpdater.builder(updater, locks);
    LockedUpdater.Builder locked = LockedUpdater.builder(docs, locks);
    assertThatThrownBy(() -> adaptive.maxBatchSize(0)).hasMessage(messageOf(
        () -> locked.maxBatchSize(0))).hasMessage("maxBatchSize must be >= 1, was 0");
    assertThatThrownBy(() -> adaptive.lockWait(Duration.ZERO)).hasMessage(messageOf(
        () -> locked.lockWait(Duration.ZERO))).hasMessage("lockWait must be positive, was PT0S");
    assertThatThrownBy(() -> adaptive.lockWait(null)).hasMessage("lockWait must not be null");
    assertThatThrownBy(() -> adaptive.lockPrefix(" ")).hasMessage(messageOf(
        () -> locked.lockPrefix(" "))).hasMessage("lockPrefix must not be blank, was ' '");
    assertThat(adaptive.build()).isNotNull();
  }

  private static String messageOf(Runnable refused) {
    try {
      refused.run();
    } catch (RuntimeException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused");
  }

  @Test
  void eachUpdaterKeepsItsOwnDefaults() {
    UpdaterSettings versioned = keptBy(VersionedUpdater.builder(docs).build());
    UpdaterSettings locked = keptBy(LockedUpdater.builder(docs, locks).build());
    assertThat(versioned.strategyName()).isEqualTo("optimistic");
    assertThat(locked.strategyName()).isEqualTo("locked");
    for (UpdaterSettings s : new UpdaterSettings[] {versioned, locked}) {
      assertThat(s.versionPolicy().field()).isEqualTo(VersionPolicy.defaults().field());
      assertThat(s.retryPolicy()).isSameAs(RetryPolicy.defaults());
      assertThat(s.listener()).isSameAs(WriteGuardListener.NOOP);
      assertThat(s.random()).isNull(); // each thread's ThreadLocalRandom
      assertThat(s.groupCommit()).isTrue();
      assertThat(s.maxBatchSize()).isEqualTo(256);
    }
    assertThat(VersionedUpdater.builder(docs).build().scope().strategy())
        .isEqualTo("optimistic");
    assertThat(LockedUpdater.builder(docs, locks).build().scope().strategy())
        .isEqualTo("locked");
  }

  @Test
  void aLockedUpdaterFromAVersionedOneTakesItsWritingSettingsButNotItsGroupCommit() {
    Ticker ticker = System::nanoTime;
    Sleeper sleeper = Sleeper.system();
    RandomGenerator random = new Random(3);
    RecordingListener listener = new RecordingListener();
    VersionedUpdater versioned = VersionedUpdater.builder(docs)
        .versionPolicy(VersionPolicy.builder().field("rev").build())
        .retryPolicy(RetryPolicy.builder().maxAttempts(4).build())
        .listener(listener).strategyName("mine").ticker(ticker).sleeper(sleeper).random(random)
        .groupCommit(false).maxBatchSize(3)
        .build();
    UpdaterSettings from = versioned.settings();
    UpdaterSettings locked = LockedUpdater.builder(versioned, locks).build().settings();
    assertThat(locked).usingRecursiveComparison()
        .ignoringFields("groupCommit", "maxBatchSize").isEqualTo(from);
    assertThat(locked.groupCommit()).isTrue();
    assertThat(locked.maxBatchSize()).isEqualTo(UpdaterBuilder.DEFAULT_MAX_BATCH);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everySettingReachesTheUpdaterBuilt(Kind kind) {
    VersionPolicy versions = VersionPolicy.builder().field("rev").build();
    RetryPolicy retry = RetryPolicy.builder().maxAttempts(4).build();
    RecordingListener listener = new RecordingListener();
    AtomicInteger clockReads = new AtomicInteger();
    Ticker ticker = () -> {
      clockReads.incrementAndGet();
      return System.nanoTime();
    };
    Sleeper sleeper = Sleeper.system();
    RandomGenerator random = new Random(3);
    UpdaterBuilder<?> b = kind.builder.apply(this);
    b.versionPolicy(versions).retryPolicy(retry).listener(listener).strategyName("mine")
        .ticker(ticker).sleeper(sleeper).random(random).groupCommit(false).maxBatchSize(7);
    Object updater = kind.build.apply(b);

    UpdaterSettings kept = keptBy(updater);
    assertThat(kept.versionPolicy()).isSameAs(versions);
    assertThat(kept.retryPolicy()).isSameAs(retry);
    assertThat(kept.listener()).isSameAs(listener);
    assertThat(kept.strategyName()).isEqualTo("mine");
    assertThat(kept.ticker()).isSameAs(ticker);
    assertThat(kept.sleeper()).isSameAs(sleeper);
    assertThat(kept.random()).isSameAs(random);
    assertThat(kept.groupCommit()).isFalse();
    assertThat(kept.maxBatchSize()).isEqualTo(7);

    // And the updater works by them: its version field, its events under its strategy name,
    // its clock.
    docs.insertOne(new Document("_id", 1).append("rev", 0L).append("n", 0));
    Mutator increment = current -> Mutation.update(Updates.inc("n", 1));
    if (updater instanceof VersionedUpdater v) {
      assertThat(v.groupCommit()).isFalse();
      assertThat(v.versionPolicy()).isSameAs(versions);
      assertThat(v.retryPolicy()).isSameAs(retry);
      v.update(1, increment);
    } else {
      LockedUpdater l = (LockedUpdater) updater;
      assertThat(l.groupCommit()).isFalse();
      l.update(1, increment);
    }
    Document stored = docs.find(new Document("_id", 1)).first();
    assertThat(stored.getInteger("n")).isEqualTo(1);
    assertThat(stored.getLong("rev")).isPositive();
    assertThat(stored).doesNotContainKey("version");
    assertThat(listener.events).contains("success 1");
    assertThat(listener.scopes).allSatisfy(s -> assertThat(s.strategy()).isEqualTo("mine"));
    assertThat(clockReads).hasPositiveValue();
  }
}
