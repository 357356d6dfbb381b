package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.mongodb.client.MongoCollection;
import io.writeguard.WriteGuardException;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.TestMongo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Date;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 17 (adversarial): ways {@link IdempotencyStore#once} still leaves a claim
 * nobody finishes, or lets a raw driver error out, after the settling work.
 */
class IdempotencyStoreReview17Test {
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("OnceReview17").getCollection("once");
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void clearTheFlag() {
    Thread.interrupted();
  }

  private void insertExpiredClaim(String key) {
    collection.insertOne(new Document("_id", key).append("state", "pending")
        .append("owner", "crashed-process").append("claimedAt", new Date(0))
        .append("leaseMillis", 1L).append("takeovers", 0));
  }

  /**
   * A crashed claimer left an expired claim. Write 1 is our claim (duplicate key), write 2 the
   * takeover: applied, its reply lost. The claim path settles exactly this (re-sent with the
   * same token); the takeover path does not: the raw MongoSocketReadException escapes, and the
   * record now belongs to a token nobody runs, with a fresh lease, so the key is blocked for a
   * whole lease although the action never ran.
   */
  @Test
  void aTakeOverWhoseReplyWasLostIsSettledAndNoRawDriverErrorEscapes() {
    insertExpiredClaim("charge:11");
    ApplyThenFail faults = ApplyThenFail.atWrite(2);
    IdempotencyStore store = IdempotencyStore.builder(faults.wrap(collection))
        .waitTimeout(Duration.ZERO).build();
    Throwable first = catchThrowable(() -> store.once("charge:11", String.class,
        () -> "ch_" + runs.incrementAndGet()));
    assertThat(faults.fired()).isTrue();
    if (first != null) {
      assertThat(first).as("errors are typed (WriteGuardException family)")
          .isInstanceOf(WriteGuardException.class);
    }
    IdempotencyStore plain = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ZERO).build();
    assertThat(plain.once("charge:11", String.class, () -> "ch_" + runs.incrementAndGet())
        .value()).as("the key is not left blocked by a takeover nobody runs").isEqualTo("ch_1");
    assertThat(runs).hasValue(1);
  }

  /**
   * An outcome the codecs encode but the server (or the driver's size check) refuses: a
   * 17 MB string. The action ran; the documented rule for an outcome that cannot be stored is
   * OutcomeNotRecordedException and a key marked done, never a pending claim that lets the
   * action run again once its lease runs out. Today the driver's BsonMaximumSizeExceededException
   * (not a MongoException, so complete() does not catch it) escapes raw, the claim stays
   * pending, and the next caller runs the action again.
   */
  @Test
  void anOutcomeTooLargeToStoreIsReportedAsNotRecordedAndTheKeyIsNotLeftPending()
      throws InterruptedException {
    IdempotencyStore store = IdempotencyStore.builder(collection)
        .lease(Duration.ofMillis(1)).waitTimeout(Duration.ZERO).build();
    Throwable thrown = catchThrowable(() -> store.once("report:1", String.class, () -> {
      runs.incrementAndGet();
      return "x".repeat(17 * 1024 * 1024);
    }));
    Document record = collection.find(eq("_id", "report:1")).first();
    assertThat(record).as("a record stays, so the action does not run again").isNotNull();
    Thread.sleep(5); // the 1 ms lease has run out by the server's clock
    catchThrowable(() -> store.once("report:1", String.class,
        () -> "again " + runs.incrementAndGet()));
    assertThat(runs).as("an idempotent action runs at most once per key").hasValue(1);
    assertThat(record.getString("state")).as("not pending: no lease runs out on it")
        .isNotEqualTo("pending");
    assertThat(thrown).as("typed: the action ran but its outcome was not recorded")
        .isInstanceOf(OutcomeNotRecordedException.class);
  }

  /**
   * A collection whose first read is preceded by {@code beforeRead} (another caller's step
   * landing between our claim and our read); collections derived from it share the hook.
   */
  @SuppressWarnings("unchecked")
  private static <T> MongoCollection<T> beforeFirstRead(MongoCollection<T> real,
      AtomicBoolean done, Runnable beforeRead) {
    return (MongoCollection<T>) Proxy.newProxyInstance(MongoCollection.class.getClassLoader(),
        new Class<?>[] {MongoCollection.class}, (proxy, method, args) -> {
          if (method.getName().equals("find") && done.compareAndSet(false, true)) {
            beforeRead.run();
          }
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          return result instanceof MongoCollection<?> derived
              ? beforeFirstRead(derived, done, beforeRead) : result;
        });
  }

  /**
   * Caller A holds a live claim; caller B's claim fails with duplicate key; before B reads the
   * record, A's action fails and A deletes its claim ("a failed action gives its claim up so a
   * retry runs at once"). B reads nothing: the code's own comment says "claim again at once",
   * and the javadoc "Gone (released): claim again". With waitTimeout 0 (or a deadline already
   * reached) B instead throws IdempotencyInProgressException naming owner "(released)",
   * although nobody holds the key.
   */
  @Test
  void aClaimReleasedBetweenOurClaimAndOurReadIsClaimedAgainNotReportedInProgress() {
    collection.insertOne(new Document("_id", "mail:13").append("state", "pending")
        .append("owner", "caller-a").append("claimedAt", new Date())
        .append("leaseMillis", 30_000L).append("takeovers", 0));
    MongoCollection<Document> racing = beforeFirstRead(collection, new AtomicBoolean(),
        () -> collection.deleteOne(eq("_id", "mail:13"))); // A's action failed: released
    IdempotencyStore store = IdempotencyStore.builder(racing)
        .waitTimeout(Duration.ZERO).build();
    Throwable thrown = catchThrowable(() -> assertThat(store.once("mail:13", String.class,
        () -> "sent " + runs.incrementAndGet())).isEqualTo(new OnceResult<>("sent 1", true)));
    assertThat(thrown).as("nobody holds the key; B claims it again at once").isNull();
  }
}
