package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.writeguard.lock.LeaseTerms;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The two lease-lock builders share one set of lease settings: the same names, the same
 * defaults where the stores allow (the longest key differs: a MongoDB lock's {@code _id} stays
 * a small index key), and the same message naming the bad value for every bad setting.
 */
class LeaseSettingsParityTest {

  /** One lease setting, said the same way to both builders. */
  private interface Setting {
    MongoLeaseLockService.Builder mongo(MongoLeaseLockService.Builder b);

    RedisLockService.Builder redis(RedisLockService.Builder b);
  }

  private static Setting setting(UnaryOperator<MongoLeaseLockService.Builder> mongo,
      UnaryOperator<RedisLockService.Builder> redis) {
    return new Setting() {
      @Override
      public MongoLeaseLockService.Builder mongo(MongoLeaseLockService.Builder b) {
        return mongo.apply(b);
      }

      @Override
      public RedisLockService.Builder redis(RedisLockService.Builder b) {
        return redis.apply(b);
      }
    };
  }

  private static MongoLeaseLockService.Builder mongo() {
    return MongoLeaseLockService.builder(TestMongo.freshDatabase("LeaseParity"), "locks")
        .noCleanup();
  }

  private static RedisLockService.Builder redis() {
    return RedisLockService.builder().uri(TestRedis.uri());
  }

  @Test
  void everyBadLeaseSettingGetsTheSameMessageFromBothBuilders() {
    List<Setting> bad = List.of(
        setting(b -> b.lease(Duration.ZERO), b -> b.lease(Duration.ZERO)),
        setting(b -> b.lease(Duration.ofMillis(-1)), b -> b.lease(Duration.ofMillis(-1))),
        setting(b -> b.lease(Duration.ofNanos(500)), b -> b.lease(Duration.ofNanos(500))),
        setting(b -> b.lease(null), b -> b.lease(null)),
        setting(b -> b.renewInterval(Duration.ofSeconds(-1)),
            b -> b.renewInterval(Duration.ofSeconds(-1))),
        setting(b -> b.lease(Duration.ofSeconds(5)).renewInterval(Duration.ofSeconds(5)),
            b -> b.lease(Duration.ofSeconds(5)).renewInterval(Duration.ofSeconds(5))),
        setting(b -> b.owner(" "), b -> b.owner(" ")),
        setting(b -> b.handoffBatch(0), b -> b.handoffBatch(0)),
        setting(b -> b.handoffSlice(Duration.ZERO), b -> b.handoffSlice(Duration.ZERO)),
        setting(b -> b.lease(Duration.ofSeconds(2)).handoffSlice(Duration.ofSeconds(2)),
            b -> b.lease(Duration.ofSeconds(2)).handoffSlice(Duration.ofSeconds(2))),
        setting(b -> b.maxKeyLength(0), b -> b.maxKeyLength(0)));
    for (Setting setting : bad) {
      Throwable fromMongo = catchThrowable(() -> setting.mongo(mongo()).build().close());
      Throwable fromRedis = catchThrowable(() -> setting.redis(redis()).build().close());
      // A bad value is an IllegalArgumentException, a missing one a NullPointerException.
      assertThat(fromMongo).isInstanceOfAny(IllegalArgumentException.class,
          NullPointerException.class);
      assertThat(fromRedis).isExactlyInstanceOf(fromMongo.getClass())
          .hasMessage(fromMongo.getMessage());
    }
  }

  @Test
  void theDefaultsAreTheSame() {
    try (MongoLeaseLockService m = mongo().build(); RedisLockService r = redis().build()) {
      LeaseTerms expected = new LeaseTerms(Duration.ofSeconds(30),
          Optional.of(Duration.ofSeconds(10)), 32, Duration.ofMillis(20), 0);
      assertThat(m.leaseTerms()).usingRecursiveComparison().ignoringFields("maxKeyLength")
          .isEqualTo(expected);
      assertThat(r.leaseTerms()).usingRecursiveComparison().ignoringFields("maxKeyLength")
          .isEqualTo(expected);
      assertThat(m.leaseTerms().maxKeyLength()).isEqualTo(256);
      assertThat(r.leaseTerms().maxKeyLength()).isEqualTo(1024);
    }
  }

  /** The watchdog follows the lease on both: a third of it unless set, as Redis' fixed 10 s was not. */
  @Test
  void theWatchdogIntervalIsAThirdOfAnyLeaseOnBoth() {
    try (MongoLeaseLockService m = mongo().lease(Duration.ofSeconds(3)).build();
        RedisLockService r = redis().lease(Duration.ofSeconds(3)).build()) {
      assertThat(m.leaseTerms().renewInterval()).contains(Duration.ofSeconds(1));
      assertThat(r.leaseTerms().renewInterval()).contains(Duration.ofSeconds(1));
    }
  }

  /** One name for "no watchdog" on both; Mongo's old name still works. */
  @Test
  @SuppressWarnings("deprecation")
  void withoutWatchdogOnBothAndTheOldNameStillWorks() {
    try (MongoLeaseLockService m = mongo().withoutWatchdog().build();
        MongoLeaseLockService old = mongo().noRenewal().build();
        RedisLockService r = redis().withoutWatchdog().build()) {
      assertThat(m.leaseTerms().renewInterval()).isEmpty();
      assertThat(old.leaseTerms().renewInterval()).isEmpty();
      assertThat(r.leaseTerms().renewInterval()).isEmpty();
    }
  }
}
