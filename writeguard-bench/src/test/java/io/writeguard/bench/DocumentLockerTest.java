package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** The port keeps the article's bugs: the bench measures what the article's readers run. */
class DocumentLockerTest {

  @Test
  void twoRequestsForTheSameDocumentBothGetTheLock() {
    try (DocumentLocker locker = new DocumentLocker(Duration.ofMillis(5))) {
      ObjectId doc = new ObjectId();

      assertThat(locker.acquire(new ObjectId(doc.toHexString()))).isDone();
      assertThat(locker.acquire(new ObjectId(doc.toHexString()))).isDone();
    }
  }

  @Test
  void releaseStrandsTheWaiterOfTheSameObjectForever() throws Exception {
    try (DocumentLocker locker = new DocumentLocker(Duration.ofMillis(5))) {
      ObjectId id = new ObjectId();
      locker.acquire(id).join();
      CompletableFuture<Void> waiter = locker.acquire(id);
      assertThat(waiter).isNotDone();

      locker.release(id);
      Thread.sleep(100); // twenty polls: a working locker would have handed the lock over

      assertThat(waiter).isNotDone();
      assertThat(locker.acquire(new ObjectId(id.toHexString()))).isDone();
    }
  }
}
