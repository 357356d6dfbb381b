package io.writeguard.app.readinfo;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Projections;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.Checks;
import org.bson.Document;

/** Checks and look-ups every strategy shares. Stateless. */
final class Marks {
  private Marks() {}

  static String checkUser(String userId) {
    return Checks.notBlank("userId", userId);
  }

  static String collectionName(MongoCollection<Document> collection) {
    return collection.getNamespace().getCollectionName();
  }

  /**
   * After a write that matched nothing: why? Reads the item's list (one small projection).
   *
   * @return true when the user is already in the item's list
   * @throws NoSuchDocumentException when there is no document
   * @throws NoSuchItemException when the document has no such item
   */
  static boolean alreadyMarked(MongoCollection<Document> collection, ReadItem item, String user) {
    String name = collectionName(collection);
    // Project the whole list: a projection does not read "0" as an array index.
    Document doc = Deadline.bounded(collection).find(eq("_id", item.docId()))
        .projection(Projections.include(item.itemPath().parent().orElseThrow().toString()))
        .first();
    if (doc == null) {
      throw new NoSuchDocumentException(name, item);
    }
    return ReadLists.readList(doc, item, name).contains(user);
  }
}
