package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 17): a lease lock closed on an interrupted thread (try-with-resources around
 * work that was cancelled) threw and kept its key taken for the whole lease.
 */
class InterruptedCloseRegressionTest {
  private final MongoCollection<Document> locks =
      TestMongo.freshDatabase("InterruptedClose").getCollection("locks");
  private MongoLeaseLockService service;

  @AfterEach
  void close() {
    Thread.interrupted();
    if (service != null) {
      service.close();
    }
  }

  @Test
  void aLockClosedOnAnInterruptedThreadIsReleasedAndTheFlagKept() {
    service = MongoLeaseLockService.builder(locks).noCleanup().noRenewal()
        .lease(Duration.ofSeconds(30)).build();
    try (LockHandle held = service.acquire("job", Duration.ofSeconds(5))) {
      assertThat(held.token()).isPositive();
      Thread.currentThread().interrupt(); // the work under the lock was cancelled
    }
    assertThat(Thread.interrupted()).as("the interrupt is still the caller's").isTrue();
    assertThat(service.lockDocument("job").get("owner")).as("released in the store").isNull();
  }
}
