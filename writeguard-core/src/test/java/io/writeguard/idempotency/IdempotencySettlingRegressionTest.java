package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.TestMongo;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 17): every way {@link IdempotencyStore#once} could leave a claim that nobody
 * finishes, which blocks the key for a whole lease and then lets the action run again.
 */
class IdempotencySettlingRegressionTest {
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("OnceSettling").getCollection("once");
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void clearTheFlag() {
    Thread.interrupted(); // a failed assertion must not leave the test thread interrupted
  }

  /** An action cancelled at its end (shutdownNow, cancel(true)) still had its effect. */
  @Test
  void anActionThatEndsInterruptedStillHasItsOutcomeStored() {
    IdempotencyStore store = IdempotencyStore.builder(collection).build();
    OnceResult<String> first = store.once("mail:1", String.class, () -> {
      runs.incrementAndGet();
      Thread.currentThread().interrupt(); // cancelled while it was finishing
      return "sent";
    });
    assertThat(first).isEqualTo(new OnceResult<>("sent", true));
    assertThat(Thread.interrupted()).as("the interrupt is still the caller's").isTrue();
    assertThat(collection.find(eq("_id", "mail:1")).first()).containsEntry("state", "done");
    assertThat(store.once("mail:1", String.class, () -> "again " + runs.incrementAndGet()))
        .isEqualTo(new OnceResult<>("sent", false));
    assertThat(runs).hasValue(1);
  }

  @Test
  void anActionThatFailsInterruptedGivesItsClaimUp() {
    IdempotencyStore store = IdempotencyStore.builder(collection).build();
    IllegalStateException cancelled = new IllegalStateException("cancelled");
    assertThatThrownBy(() -> store.once("mail:2", String.class, () -> {
      runs.incrementAndGet();
      Thread.currentThread().interrupt();
      throw cancelled;
    })).isSameAs(cancelled).satisfies(e -> assertThat(e.getSuppressed()).isEmpty());
    assertThat(Thread.interrupted()).as("the interrupt is still the caller's").isTrue();
    assertThat(collection.countDocuments()).as("the claim was deleted").isZero();
    assertThat(store.once("mail:2", String.class, () -> "sent " + runs.incrementAndGet()))
        .as("a retry runs the action at once").isEqualTo(new OnceResult<>("sent 2", true));
  }

  /** Write 1 is the claim: applied, its reply lost. Re-sent with the same token, it is ours. */
  @Test
  void aClaimWhoseReplyWasLostIsSettledByResendingIt() {
    ApplyThenFail faults = ApplyThenFail.atWrite(1);
    IdempotencyStore store = IdempotencyStore.builder(faults.wrap(collection)).build();
    OnceResult<String> first = store.once("charge:8", String.class,
        () -> "ch_" + runs.incrementAndGet());
    assertThat(faults.fired()).isTrue();
    assertThat(first).isEqualTo(new OnceResult<>("ch_1", true));
    assertThat(collection.find(eq("_id", "charge:8")).first()).containsEntry("state", "done");
    assertThat(store.once("charge:8", String.class, () -> "ch_" + runs.incrementAndGet()))
        .isEqualTo(new OnceResult<>("ch_1", false));
    assertThat(runs).hasValue(1);
  }

  /** The claim's reply is lost to an interrupt: no action, and no claim left behind. */
  @Test
  void aClaimInterruptedWhileWaitingForItsReplyLeavesNoClaim() {
    ApplyThenFail faults = ApplyThenFail.interruptedAtWrite(1);
    IdempotencyStore store = IdempotencyStore.builder(faults.wrap(collection)).build();
    assertThatThrownBy(() -> store.once("charge:10", String.class,
        () -> "ch_" + runs.incrementAndGet()))
        .isInstanceOf(io.writeguard.WriteGuardInterruptedException.class);
    assertThat(Thread.interrupted()).as("the interrupt is still the caller's").isTrue();
    assertThat(runs).as("an interrupted caller does not start the action").hasValue(0);
    assertThat(collection.countDocuments()).as("the applied claim was deleted").isZero();
  }

  /** A BigInteger passes the check of Document's codec and fails only when encoded. */
  @Test
  void anOutcomeTheCodecsCannotEncodeIsReportedAsNotRecordedAndNeverRunsAgain() {
    IdempotencyStore store = IdempotencyStore.builder(collection).build();
    assertThatThrownBy(() -> store.once("charge:9", Document.class, () -> {
      runs.incrementAndGet();
      return new Document("charge", "ch_9").append("cents", BigInteger.TEN);
    })).isInstanceOf(OutcomeNotRecordedException.class)
        .hasMessageContaining("charge:9").hasMessageContaining("the action ran");
    assertThat(collection.find(eq("_id", "charge:9")).first().getString("state"))
        .as("not pending: no lease runs out on it").isNotEqualTo("pending");
    assertThatThrownBy(() -> store.once("charge:9", Document.class, () -> {
      runs.incrementAndGet();
      return new Document("charge", "again");
    })).isInstanceOf(OutcomeNotRecordedException.class);
    assertThat(runs).as("the action ran once").hasValue(1);
  }
}
