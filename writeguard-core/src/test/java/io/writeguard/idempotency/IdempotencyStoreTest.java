package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;

class IdempotencyStoreTest {
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("Once").getCollection("once");
  private final IdempotencyStore store = IdempotencyStore.builder(collection).build();
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void secondCallGetsTheStoredOutcomeWithoutRunning() {
    OnceResult<String> first = store.once("mail:42", String.class, () -> {
      runs.incrementAndGet();
      return "sent-" + runs.get();
    });
    OnceResult<String> second = store.once("mail:42", String.class, () -> {
      runs.incrementAndGet();
      return "sent again";
    });
    assertThat(first).isEqualTo(new OnceResult<>("sent-1", true));
    assertThat(second).isEqualTo(new OnceResult<>("sent-1", false));
    assertThat(runs).hasValue(1);
    Document record = collection.find(eq("_id", "mail:42")).first();
    assertThat(record).containsEntry("state", "done").containsEntry("outcome", "sent-1");
    assertThat(record.get("completedAt")).isInstanceOf(java.util.Date.class);
  }

  @Test
  void storesNumbersDocumentsAndNothing() {
    assertThat(store.once("n", Long.class, () -> 7L).value()).isEqualTo(7L);
    assertThat(store.once("n", Long.class, () -> 8L)).isEqualTo(new OnceResult<>(7L, false));
    Document receipt = new Document("charge", "ch_1").append("cents", 1999);
    store.once("d", Document.class, () -> receipt);
    assertThat(store.once("d", Document.class, () -> null).value()).isEqualTo(receipt);
    assertThat(store.once("v", runs::incrementAndGet)).isTrue();
    assertThat(store.once("v", runs::incrementAndGet)).isFalse();
    assertThat(runs).hasValue(1);
    assertThat(store.once("null", String.class, () -> null)).isEqualTo(new OnceResult<>(null, true));
    assertThat(store.once("null", String.class, () -> "x")).isEqualTo(new OnceResult<>(null, false));
  }

  @Test
  void failedActionReleasesTheClaimSoItCanBeRetried() {
    IllegalStateException boom = new IllegalStateException("smtp down");
    assertThatThrownBy(() -> store.once("k", String.class, () -> {
      runs.incrementAndGet();
      throw boom;
    })).isSameAs(boom);
    assertThat(collection.countDocuments()).isZero();

    assertThatThrownBy(() -> store.once("k", String.class, () -> {
      runs.incrementAndGet();
      throw new IOException("socket closed");
    }))
        .isInstanceOf(IdempotentActionException.class)
        .hasCauseInstanceOf(IOException.class)
        .hasMessageContaining("'k'");
    assertThat(collection.countDocuments()).isZero();

    assertThat(store.once("k", String.class, () -> "ok " + runs.incrementAndGet()))
        .isEqualTo(new OnceResult<>("ok 3", true));
  }

  @Test
  void forgetRemovesOnlyCompletedRecords() {
    store.once("f", String.class, () -> "a");
    assertThat(store.forget("f")).isTrue();
    assertThat(store.once("f", String.class, () -> "b").value()).isEqualTo("b");
    assertThat(store.forget("nope")).isFalse();
  }

  @Test
  void wrongOutcomeTypeIsAClearError() {
    store.once("t", String.class, () -> "text");
    assertThatThrownBy(() -> store.once("t", Long.class, () -> 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'t'")
        .hasMessageContaining("STRING");
  }

  @Test
  void badInputIsRejectedByName() {
    assertThatThrownBy(() -> store.once(" ", String.class, () -> "x"))
        .hasMessage("key must not be blank, was ' '");
    assertThatThrownBy(() -> store.once("k", Thread.class, Thread::currentThread))
        .hasMessageContaining("java.lang.Thread has no codec");
    assertThatThrownBy(() -> IdempotencyStore.builder(collection).lease(Duration.ZERO))
        .hasMessage("lease must be positive, was PT0S");
    assertThatThrownBy(() -> IdempotencyStore.builder(collection).lease(Duration.ofSeconds(-1)))
        .hasMessage("lease must be positive, was PT-1S");
    assertThatThrownBy(() -> IdempotencyStore.builder(collection).lease(Duration.ofNanos(10)))
        .hasMessage("lease in ms must be >= 1, was 0");
    assertThatThrownBy(() -> IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofMillis(-1)))
        .hasMessage("waitTimeout must not be negative, was PT-0.001S");
    assertThat(collection.countDocuments()).isZero();
    assertThat(runs).hasValue(0);
  }
}
