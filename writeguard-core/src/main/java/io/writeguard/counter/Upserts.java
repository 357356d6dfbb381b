package io.writeguard.counter;

import io.writeguard.internal.Deadline;
import com.mongodb.ErrorCategory;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;
import org.bson.Document;
import org.bson.conversions.Bson;

/** Upserts that survive the race of two first writers to the same document. Not API. */
final class Upserts {
  private static final UpdateOptions UPSERT = new UpdateOptions().upsert(true);
  private static final int MAX_TRIES = 5;

  private Upserts() {}

  /**
   * Two concurrent upserts of a missing document can both try the insert; the loser gets a
   * duplicate key error (real servers retry this themselves for an {@code _id} match, the
   * embedded one does not). Running it again then matches the winner's document.
   */
  static void upsert(MongoCollection<Document> collection, Bson filter, Bson update) {
    for (int attempt = 1; ; attempt++) {
      try {
        Deadline.boundedWrite(collection).updateOne(filter, update, UPSERT);
        return;
      } catch (MongoWriteException e) {
        if (attempt >= MAX_TRIES
            || ErrorCategory.fromErrorCode(e.getCode()) != ErrorCategory.DUPLICATE_KEY) {
          throw e;
        }
      }
    }
  }
}
