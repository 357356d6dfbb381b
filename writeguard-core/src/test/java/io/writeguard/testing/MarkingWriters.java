package io.writeguard.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * Real concurrent writers through several {@link LockedUpdater}s (one per "process") on one
 * document, each write an increment plus a unique mark; then checks that every acknowledged
 * write is in the document exactly once. Bounded in time.
 */
public final class MarkingWriters {
  private MarkingWriters() {}

  /** {@code writersEach} threads per updater, {@code writesEach} writes per thread, on {@code _id} 1. */
  public static void runAndCheck(MongoCollection<Document> docs, List<LockedUpdater> updaters,
      int writersEach, int writesEach) throws Exception {
    docs.insertOne(new Document("_id", 1).append("n", 0).append("log", List.of()));
    ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int u = 0; u < updaters.size(); u++) {
      for (int w = 0; w < writersEach; w++) {
        LockedUpdater updater = updaters.get(u);
        String writer = "u" + u + "w" + w;
        writers.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; i < writesEach; i++) {
            String mark = writer + "-" + i;
            if (updater.updateOne(1, d -> Mutation.update(new Document("$inc", new Document("n", 1))
                .append("$push", new Document("log", mark)))).written()) {
              acknowledged.add(mark);
            }
          }
        }, command -> new Thread(command, "marking-writer").start()));
      }
    }
    CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    Document doc = docs.find().first();
    assertThat(acknowledged).hasSize(updaters.size() * writersEach * writesEach);
    assertThat(doc.getInteger("n")).isEqualTo(acknowledged.size());
    assertThat(doc.getList("log", String.class)).containsExactlyInAnyOrderElementsOf(acknowledged);
  }
}
