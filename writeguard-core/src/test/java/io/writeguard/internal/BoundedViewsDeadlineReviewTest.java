package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 8a810f7, f700542 and a6eda8a: shared bounded views under many threads with
 * different deadlines and two collections with different settings, and the thread's deadline
 * across errors, nested scopes and pooled threads.
 */
@Timeout(120)
class BoundedViewsDeadlineReviewTest {
  @Test
  void manyThreadsWithDifferentDeadlinesEachGetTheirOwnBoundAndTheirOwnCollection()
      throws Exception {
    MongoCollection<Document> a = TestMongo.freshDatabase("BoundedViewsReview").getCollection("a")
        .withWriteConcern(WriteConcern.W1).withReadPreference(ReadPreference.primary());
    MongoCollection<Document> b = TestMongo.freshDatabase("BoundedViewsReview").getCollection("b")
        .withWriteConcern(WriteConcern.MAJORITY).withReadPreference(ReadPreference.nearest());
    BoundedViews<Document> va = new BoundedViews<>(a);
    BoundedViews<Document> vb = new BoundedViews<>(b);
    int threads = 8;
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int t = 0; t < threads; t++) {
        int seed = t;
        pool.submit(() -> {
          go.await();
          for (int n = 0; n < 4000; n++) {
            int i = n;
            boolean useA = (i + seed) % 2 == 0;
            BoundedViews<Document> views = useA ? va : vb;
            MongoCollection<Document> own = useA ? a : b;
            long budget = ((i * 7L + seed * 13L) % 97) - 5; // some passed, many colliding bounds
            Deadline.within(Deadline.after(Duration.ofMillis(budget)), () -> {
              boolean write = i % 3 == 0;
              long before = Deadline.boundMillis(write);
              MongoCollection<Document> view = write ? views.forWrite() : views.forRead();
              long after = Deadline.boundMillis(write);
              long got = view.getTimeout(TimeUnit.MILLISECONDS);
              if (got > before || got < after) {
                wrong.add("bound " + got + " outside [" + after + ", " + before + "]");
              }
              if (!view.getNamespace().equals(own.getNamespace())
                  || !view.getWriteConcern().equals(own.getWriteConcern())
                  || !view.getReadPreference().equals(own.getReadPreference())
                  || view.getCodecRegistry() != own.getCodecRegistry()) {
                wrong.add("another collection's view: " + view.getNamespace());
              }
            });
            if (Deadline.current() != null) {
              wrong.add("a deadline left on the thread");
            }
          }
          return null;
        });
      }
      go.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(100, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void theRawViewKeepsItsCodecsInEveryBoundedView() {
    MongoCollection<Document> docs =
        TestMongo.freshDatabase("BoundedViewsReview").getCollection("raw");
    MongoCollection<RawBsonDocument> raw = OneCopyRawCodec.rawView(docs);
    BoundedViews<RawBsonDocument> views = new BoundedViews<>(raw);
    Deadline.within(Deadline.after(Duration.ofSeconds(5)), () -> {
      assertThat(views.forRead().getCodecRegistry()).isSameAs(raw.getCodecRegistry());
      assertThat(views.forWrite().getDocumentClass()).isEqualTo(RawBsonDocument.class);
    });
  }

  @Test
  void theOuterDeadlineIsBackAfterAnErrorAnExceptionOrANestedReplacement() {
    Deadline outer = Deadline.after(Duration.ofSeconds(30));
    Deadline.within(outer, () -> {
      assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
          (Runnable) () -> {
            throw new StackOverflowError("deep");
          })).isInstanceOf(StackOverflowError.class);
      assertThat(Deadline.current()).isSameAs(outer);
      Deadline inner = Deadline.enter(Deadline.after(Duration.ofMinutes(5)));
      try {
        assertThat(Deadline.current()).as("a later inner deadline keeps the outer")
            .isSameAs(outer);
        Deadline.replacing(null, () -> {
          assertThat(Deadline.current()).isNull();
          assertThat(Deadline.boundMillis(false)).isEqualTo(Deadline.UNBOUNDED);
          return null;
        });
        assertThat(Deadline.current()).isSameAs(outer);
      } finally {
        Deadline.restore(inner);
      }
      assertThat(Deadline.current()).isSameAs(outer);
    });
    assertThat(Deadline.current()).isNull();
  }

  @Test
  void aPooledThreadDoesNotCarryADeadlineFromOneTaskToTheNext() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      one.submit(() -> Deadline.within(Deadline.after(Duration.ofMillis(-1)), () -> {
        throw new IllegalStateException("failed inside");
      }));
      Thread.currentThread().interrupt(); // an interrupt must not change what is restored
      try {
        Deadline.within(Deadline.after(Duration.ofSeconds(1)), () -> null);
      } finally {
        assertThat(Thread.interrupted()).isTrue();
      }
      List<Object> seen = List.of(one.submit(() -> String.valueOf(Deadline.current())).get(),
          one.submit(() -> Deadline.boundMillis(true)).get());
      assertThat(seen).containsExactly("null", Deadline.UNBOUNDED);
    } finally {
      one.shutdownNow();
    }
  }
}
