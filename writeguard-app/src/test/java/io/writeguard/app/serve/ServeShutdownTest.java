package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.MongoLeaseLockService;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * A stop while a mark is in progress (holding a MongoDB lease lock): later requests are
 * refused with 503, the mark in progress finishes with 200, the stop waits for it, and the
 * lock is released, not left to expire.
 */
class ServeShutdownTest {

  @Test
  void stopFinishesTheRequestInProgressAndReleasesItsLock() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicBoolean block = new AtomicBoolean(true);
    ServeFixture serve = new ServeFixture("ServeShutdown", b -> b.betweenReadAndWrite(() -> {
      if (block.getAndSet(false)) {
        entered.countDown();
        await(proceed);
      }
    }), ServeConfig.builder().port(0).shutdownGrace(Duration.ofSeconds(30)).build());
    boolean closed = false;
    try {
      String id = serve.createDocument(1, 1, 1);
      String url = serve.server.url();
      CompletableFuture<HttpResponse<String>> inFlight =
          CompletableFuture.supplyAsync(() -> serve.mark(id, "k0", "s0", "0", "alice", "mongo-lock"));
      assertThat(entered.await(30, TimeUnit.SECONDS)).as("mark reached its write").isTrue();
      assertThat(serve.server.inFlight()).isEqualTo(1);

      CompletableFuture<Void> stop = CompletableFuture.runAsync(serve.server::close);
      HttpResponse<String> refused = awaitRefusal(serve);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();
      assertThat(stop).as("stop waits for the request in progress").isNotDone();

      proceed.countDown();
      HttpResponse<String> done = inFlight.get(30, TimeUnit.SECONDS);
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      stop.get(30, TimeUnit.SECONDS);
      closed = true;
      assertThat(ServeApiTest.readList(serve, id, "k0", "s0", 0)).containsExactly("alice");

      // Released, not expired: another owner gets the lock at once.
      try (MongoLeaseLockService other = MongoLeaseLockService.builder(serve.db, "docs_locks").build()) {
        Optional<LockHandle> lock = other.tryAcquire("docs:" + new ObjectId(id));
        assertThat(lock).as("lock released by the stop").isPresent();
        lock.get().close();
      }
      assertThat(url).isNotBlank();
    } finally {
      proceed.countDown();
      if (!closed) {
        serve.close();
      }
    }
  }

  /** Health checks until the gate refuses them (bounded). */
  private static HttpResponse<String> awaitRefusal(ServeFixture serve) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = serve.get("/health", null);
      if (r.statusCode() != 200) {
        return r;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the server kept admitting requests after the stop began");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
