package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.junit.jupiter.api.Test;

/**
 * Review of {@link RoundDocuments} keeping one map of decoded values for a round, updated in
 * place as the states go by: the map outlives the fields a state drops, and a round asks for
 * states out of order (outcomes are copied after its last state). Every copy must be exactly
 * what the store's codec decodes for the state asked for (values, Java classes, key order),
 * whichever state came before it.
 */
class RoundDocumentsStatesReviewTest {
  private static final Codec<Document> CODEC =
      MongoClientSettings.getDefaultCodecRegistry().get(Document.class);

  private static BsonDocument json(String json) {
    return BsonDocument.parse(json);
  }

  private static String decoded(BsonDocument state) {
    return DocumentShapes.describe(
        CODEC.decode(new BsonDocumentReader(state), DecoderContext.builder().build()));
  }

  @Test
  void fieldsRemovedAndAddedAgainOrNulledAreDecodedFromTheStateAskedFor() {
    BsonDocument s0 = new BsonDocument("_id", new BsonInt32(1))
        .append("version", new BsonInt64(1))
        .append("a", new BsonInt32(1))
        .append("b", new BsonDocument("x", new BsonInt32(1)))
        .append("when", new BsonDateTime(5))
        .append("blob", new BsonBinary(new byte[] {1, 2}));
    List<BsonDocument> states = new ArrayList<>(List.of(s0));
    for (String update : List.of(
        "{$unset: {a: ''}}",                          // 1: a removed
        "{$set: {a: 'two'}}",                         // 2: a again, another type, at the end
        "{$set: {a: null}}",                          // 3: a null
        "{$unset: {b: '', blob: ''}}",                // 4: b and blob removed
        "{$set: {b: [1]}}",                           // 5: b again, an array
        "{$set: {blob: {$binary: {base64: 'CQk=', subType: '00'}}}}", // 6: blob again
        "{$inc: {'b.0': 1}}")) {                      // 7: inside the new b
      states.add(InMemoryUpdate.apply(states.get(states.size() - 1), json(update)));
    }
    RoundDocuments documents = new RoundDocuments(CODEC);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < states.size(); i++) {
      order.add(i); // as the round's callers see them
    }
    for (int i = states.size() - 1; i >= 0; i--) {
      order.add(i); // as outcomes may ask for them, and back
    }
    order.addAll(List.of(0, 6, 1, 5, 2, 4, 3, 7, 0, 2, 0, 3)); // every jump across a removal
    for (int i : order) {
      assertThat(DocumentShapes.describe(documents.copyOf(states.get(i)))).as("state %s", i)
          .isEqualTo(decoded(states.get(i)));
    }
  }

  @Test
  void theSameValuesInAnotherOrderAreCopiedInTheStatesOrder() {
    BsonValue a = new BsonInt32(1);
    BsonValue b = new BsonDocument("x", new BsonString("y"));
    BsonValue c = new BsonArray(List.of(new BsonDateTime(7)));
    BsonValue id = new BsonInt32(9);
    BsonDocument abc = new BsonDocument("_id", id).append("a", a).append("b", b).append("c", c);
    // A replacement puts the fields in its own order; these share the value objects.
    BsonDocument cba = new BsonDocument("_id", id).append("c", c).append("b", b).append("a", a);
    BsonDocument ca = new BsonDocument("_id", id).append("c", c).append("a", a);
    RoundDocuments documents = new RoundDocuments(CODEC);
    for (BsonDocument state : List.of(abc, cba, ca, abc, ca, cba)) {
      assertThat(DocumentShapes.describe(documents.copyOf(state))).isEqualTo(decoded(state));
    }
  }
}
