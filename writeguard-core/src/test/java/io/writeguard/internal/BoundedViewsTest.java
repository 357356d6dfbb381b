package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A view handed out again is the one {@link Deadline#bounded} and {@link Deadline#boundedWrite}
 * would build: the same collection with the same timeout, and none without a deadline.
 */
class BoundedViewsTest {
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("BoundedViews").getCollection("d");
  private final BoundedViews<Document> views = new BoundedViews<>(docs);

  @Test
  void withoutADeadlineTheCollectionItself() {
    assertThat(Deadline.current()).isNull();
    assertThat(views.forRead()).isSameAs(docs);
    assertThat(views.forWrite()).isSameAs(docs);
  }

  @Test
  void aViewIsKeptForItsBoundAndServesTheSameBoundAgain() {
    // Long passed: every read is bounded by 1 ms, every write by 1 ms too (the grace is spent).
    Deadline.within(Deadline.after(Duration.ofSeconds(-10)), () -> {
      MongoCollection<Document> read = views.forRead();
      MongoCollection<Document> write = views.forWrite();
      assertThat(read.getTimeout(TimeUnit.MILLISECONDS))
          .isEqualTo(Deadline.bounded(docs).getTimeout(TimeUnit.MILLISECONDS)).isEqualTo(1);
      assertThat(write.getTimeout(TimeUnit.MILLISECONDS))
          .isEqualTo(Deadline.boundedWrite(docs).getTimeout(TimeUnit.MILLISECONDS)).isEqualTo(1);
      assertThat(views.forRead()).isSameAs(read);
      assertThat(views.forWrite()).isSameAs(write);
      assertSameCollection(read);
    });
  }

  @Test
  void aViewHasTheBoundTheDeadlineGivesAtThatMoment() {
    Deadline.within(Deadline.after(Duration.ofSeconds(30)), () -> {
      for (int i = 0; i < 50; i++) {
        // The time left only shrinks: the view's bound lies between two fresh ones around it.
        long readBefore = Deadline.bounded(docs).getTimeout(TimeUnit.MILLISECONDS);
        long read = views.forRead().getTimeout(TimeUnit.MILLISECONDS);
        long writeBefore = Deadline.boundedWrite(docs).getTimeout(TimeUnit.MILLISECONDS);
        long write = views.forWrite().getTimeout(TimeUnit.MILLISECONDS);
        long writeAfter = Deadline.boundedWrite(docs).getTimeout(TimeUnit.MILLISECONDS);
        assertThat(read).isBetween(
            Deadline.bounded(docs).getTimeout(TimeUnit.MILLISECONDS), readBefore);
        assertThat(write).isBetween(writeAfter, writeBefore);
      }
      assertSameCollection(views.forRead());
      assertSameCollection(views.forWrite());
    });
  }

  @Test
  void aNestedDeadlineBoundsTheViewsItsCallsGet() {
    Deadline.within(Deadline.after(Duration.ofHours(1)), () -> {
      long outer = views.forRead().getTimeout(TimeUnit.MILLISECONDS);
      Deadline.within(Deadline.after(Duration.ofSeconds(-10)), () ->
          assertThat(views.forRead().getTimeout(TimeUnit.MILLISECONDS)).isEqualTo(1));
      assertThat(views.forRead().getTimeout(TimeUnit.MILLISECONDS)).isGreaterThan(1)
          .isLessThanOrEqualTo(outer);
    });
    assertThat(views.forRead()).isSameAs(docs);
  }

  private void assertSameCollection(MongoCollection<Document> view) {
    assertThat(view.getNamespace()).isEqualTo(docs.getNamespace());
    assertThat(view.getDocumentClass()).isEqualTo(docs.getDocumentClass());
    assertThat(view.getCodecRegistry()).isSameAs(docs.getCodecRegistry());
    assertThat(view.getWriteConcern()).isEqualTo(docs.getWriteConcern());
    assertThat(view.getReadConcern()).isEqualTo(docs.getReadConcern());
    assertThat(view.getReadPreference()).isEqualTo(docs.getReadPreference());
  }
}
