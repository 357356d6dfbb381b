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

  @Test
  void pullThroughALeadingZeroIndexIsLeftToTheServer() {
    // MongoDB reads "01" in an array as index 1 and pulls from a[1] ({a: [[1, 2], [1, 3]]});
    // the model found no such path and did nothing.
    assertThatThrownBy(() -> apply("{a: [[1, 2], [1, 2, 3]]}", "{$pull: {'a.01': 2}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThat(apply("{a: [[1, 2], [1, 2, 3]]}", "{$pull: {'a.1': 2}}"))
        .isEqualTo(BsonDocument.parse("{a: [[1, 2], [1, 3]]}"));
  }

  @Test
  void pullOfAFieldNameThroughAnArrayIsLeftToTheServer() {
    // MongoDB answers PathNotViable; the model took it for a missing path and did nothing.
    assertThatThrownBy(() -> apply("{items: [{tags: [1, 2]}]}", "{$pull: {'items.tags': 1}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{items: []}", "{$pull: {'items.tags': 1}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    // An index past the end is viable: nothing to pull.
    assertThat(apply("{items: [[1]]}", "{$pull: {'items.5': 1}}"))
        .isEqualTo(BsonDocument.parse("{items: [[1]]}"));
  }

  @Test
  void incOfAMissingFieldByNegativeZeroIsNotStoredAsPositiveZero() {
    // The server stores an $inc's operand as it is (-0.0 stays -0.0); the model computed
    // -0.0 + 0 = 0.0. The embedded test server also stores 0.0, so the case cannot be checked
    // against it: refused, at a new field and at a padded array index alike.
    assertThatThrownBy(() -> apply("{}", "{$inc: {a: -0.0}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("{a: [1]}", "{$inc: {'a.2': -0.0}}"))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    // Any other operand is stored as it is.
    assertThat(apply("{}", "{$inc: {a: 2.5}}")).isEqualTo(BsonDocument.parse("{a: 2.5}"));
    assertThat(apply("{a: [1]}", "{$inc: {'a.2': 0.0}}"))
        .isEqualTo(BsonDocument.parse("{a: [1, null, 0.0]}"));
    // $mul of a missing field stores operand * int32 0: -0.0 for a negative double.
    BsonDocument multiplied = apply("{}", "{$mul: {a: -2.0}}");
    assertThat(Double.doubleToRawLongBits(multiplied.getDouble("a").getValue()))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(apply("{}", "{$mul: {a: NumberLong(5)}}"))
        .isEqualTo(BsonDocument.parse("{a: NumberLong(0)}"));
  }
}
