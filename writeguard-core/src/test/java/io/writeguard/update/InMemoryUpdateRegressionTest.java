package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Cases where the in-memory model once computed something a MongoDB server would not store.
 * The embedded test server cannot show these (it has no padding limit and no collations), so
 * each is pinned here against the server's documented behaviour.
 */
class InMemoryUpdateRegressionTest {

  private static BsonDocument apply(String document, String update) {
    return InMemoryUpdate.apply(BsonDocument.parse(document), BsonDocument.parse(update));
  }

  @Test
  void settingAnIndexFarPastTheEndOfAnArrayIsLeftToTheServer() {
    // MongoDB refuses to pad an array by more than 1,500,000 nulls; the model padded any
    // amount (an index of 999999999 ran the leader out of memory, failing the whole batch).
    assertThatThrownBy(() -> apply("{a: [1]}", "{$set: {'a.2000000': 1}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{a: []}", "{$inc: {'a.999999999': 1}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThat(apply("{a: [1]}", "{$set: {'a.3': 2}}"))
        .isEqualTo(BsonDocument.parse("{a: [1, null, null, 2]}"));
  }

  @Test
  void comparingTwoStringsIsLeftToTheServerWhoseCollectionMayHaveACollation() {
    // A collection's default collation (say, case-insensitive) decides string equality and
    // order for $addToSet, $pull, $min and $max; the model only knows binary order.
    assertThatThrownBy(() -> apply("{tags: ['a']}", "{$addToSet: {tags: 'A'}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{tags: ['a', 'b']}", "{$pull: {tags: 'A'}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{s: 'b'}", "{$min: {s: 'B'}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{d: [{k: 'a'}]}", "{$addToSet: {d: {k: 'A'}}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    // No two strings compared: still modelled.
    assertThat(apply("{tags: [1, 2]}", "{$addToSet: {tags: 'A'}}"))
        .isEqualTo(BsonDocument.parse("{tags: [1, 2, 'A']}"));
    assertThat(apply("{s: null}", "{$max: {s: 'x'}}"))
        .isEqualTo(BsonDocument.parse("{s: 'x'}"));
    assertThat(apply("{n: 5}", "{$set: {s: 'x'}}"))
        .isEqualTo(BsonDocument.parse("{n: 5, s: 'x'}"));
  }
}
