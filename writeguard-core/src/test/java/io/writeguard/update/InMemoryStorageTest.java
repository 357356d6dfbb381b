package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * A merge refuses what MongoDB's storage validation refuses on any server from 4.2, at the
 * exact limits: an element deeper than 180 levels (a top-level field is level 1, each element
 * inside a document or array one more), a {@code $}-name inside a value.
 */
class InMemoryStorageTest {
  private static final BsonDocument DOC = BsonDocument.parse("{_id: 1, a: [], version: 1}");

  /** A value whose deepest element is {@code levels} below it: {n: {n: ... {leaf: 1}}}. */
  private static BsonValue nested(int levels) {
    BsonValue value = new BsonDocument("leaf", new BsonInt32(1));
    for (int i = 1; i < levels; i++) {
      value = new BsonDocument("n", value);
    }
    return value;
  }

  /** The update checked as a merge checks it, then applied. */
  private static BsonDocument apply(String operator, String path, BsonValue operand) {
    var ops = InMemoryUpdate.parse(new BsonDocument(operator, new BsonDocument(path, operand)));
    ops.forEach(InMemoryStorage::check);
    return InMemoryUpdate.apply(DOC, ops);
  }

  @Test
  void aSetDownTo180LevelsIsModelledAndOneMoreIsNot() {
    assertThat(apply("$set", "v", nested(179))).isNotNull(); // leaf at level 180
    assertThatThrownBy(() -> apply("$set", "v", nested(180)))
        .isInstanceOf(InMemoryUpdate.NotModelled.class).hasMessageContaining("180");
    assertThat(apply("$set", "x.y", nested(178))).isNotNull(); // the path counts too
    assertThatThrownBy(() -> apply("$set", "x.y", nested(179)))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThat(apply("$min", "w", nested(179))).isNotNull();
    assertThatThrownBy(() -> apply("$max", "w", nested(180)))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
  }

  @Test
  void aPushedValueIsOneLevelBelowItsArray() {
    assertThat(apply("$push", "a", nested(178))).isNotNull(); // a 1, element 2, leaf 180
    assertThatThrownBy(() -> apply("$push", "a", nested(179)))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    BsonDocument each = new BsonDocument("$each", new org.bson.BsonArray(
        java.util.List.of(new BsonInt32(1), nested(179))));
    assertThatThrownBy(() -> apply("$addToSet", "a", each))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
  }

  @Test
  void theModelRefusesExactlyWhatTheServersDepthRuleRefusesForMixedArraysAndDocuments() {
    // Values nested through documents and arrays in every mix, stored by every operator the
    // model stores with, at top-level, dotted, created and array-element paths, around the
    // limit: modelled exactly when the stored document passes the rule RuleStore applies.
    BsonDocument doc = BsonDocument.parse("{_id: 1, arr: [{x: 1}], e: {f: {}}, version: 1}");
    java.util.Random random = new java.util.Random(180);
    String[][] targets = {{"$set", "v"}, {"$set", "e.f.g"}, {"$set", "arr.0.y"},
        {"$set", "new.a.b"}, {"$set", "arr.3"}, {"$min", "m"}, {"$max", "e.m"},
        {"$push", "arr"}, {"$push", "e.list"}, {"$addToSet", "arr"}};
    int accepted = 0;
    int refused = 0;
    for (int round = 0; round < 400; round++) {
      String[] target = targets[random.nextInt(targets.length)];
      int depth = 170 + random.nextInt(15);
      BsonValue value = new BsonInt32(7);
      for (int i = 0; i < depth; i++) {
        value = random.nextBoolean() ? new BsonDocument("k", value)
            : new org.bson.BsonArray(java.util.List.of(value));
      }
      var ops = InMemoryUpdate.parse(new BsonDocument(target[0],
          new BsonDocument(target[1], value)));
      BsonDocument after = InMemoryUpdate.apply(doc, ops);
      boolean modelled = true;
      try {
        ops.forEach(InMemoryStorage::check);
      } catch (InMemoryUpdate.NotModelled e) {
        modelled = false;
      }
      assertThat(modelled).as("%s %s at nesting %d", target[0], target[1], depth)
          .isEqualTo(!RuleStore.tooDeep(after));
      if (modelled) {
        accepted++;
      } else {
        refused++;
      }
    }
    assertThat(accepted).as("both sides of the limit were tried").isPositive();
    assertThat(refused).isPositive();
  }

  @Test
  void aPathDeeperThan180LevelsIsNotModelled() {
    String deep = String.join(".", java.util.Collections.nCopies(181, "p"));
    assertThatThrownBy(() -> apply("$inc", deep, new BsonInt32(1)))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
  }

  @Test
  void aDollarNameAnywhereInsideAValueIsNotModelled() {
    assertThatThrownBy(() -> apply("$set", "v", BsonDocument.parse("{ok: [{$x: 1}]}")))
        .isInstanceOf(InMemoryUpdate.NotModelled.class).hasMessageContaining("$x");
    assertThatThrownBy(() -> apply("$push", "a", BsonDocument.parse("{$ref: 'c', $id: 1}")))
        .as("a DBRef is valid but not modelled").isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> apply("$push", "a",
        BsonDocument.parse("{$each: [{k: {$y: 1}}]}")))
        .isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThat(apply("$push", "a", BsonDocument.parse("{$each: [{k: 'a$b'}]}"))).isNotNull();
  }

  @Test
  void aMergeChecksTheFirstWritersValuesOnlyOnceASecondJoins() {
    BsonDocument read = BsonDocument.parse("{_id: 1, v: 0, w: 0, version: 1}");
    BsonDocument deep = new BsonDocument("$set", new BsonDocument("v", nested(180)));
    MergedWrite alone = MergedWrite.ofOperators(read);
    BsonDocument after = InMemoryUpdate.apply(read, deep);
    assertThat(alone.add(deep, after)).as("alone, sent as it is: the server judges it").isTrue();
    BsonDocument next = BsonDocument.parse("{$set: {w: 1}}");
    assertThat(alone.add(next, InMemoryUpdate.apply(after, next)))
        .as("no one joins after a value the server may refuse").isFalse();
    MergedWrite fine = MergedWrite.ofOperators(read);
    BsonDocument ok = BsonDocument.parse("{$set: {v: 1}}");
    BsonDocument okAfter = InMemoryUpdate.apply(read, ok);
    assertThat(fine.add(ok, okAfter)).isTrue();
    assertThat(fine.add(deep, InMemoryUpdate.apply(okAfter, deep))).isFalse();
  }

  @Test
  void aReplacementIsCheckedFieldByField() {
    BsonDocument ok = new BsonDocument("v", nested(179));
    InMemoryStorage.checkReplacement(ok);
    assertThatThrownBy(() -> InMemoryStorage.checkReplacement(
        new BsonDocument("v", nested(180)))).isInstanceOf(InMemoryUpdate.NotModelled.class);
    assertThatThrownBy(() -> InMemoryStorage.checkReplacement(
        BsonDocument.parse("{v: {$x: 1}}"))).isInstanceOf(InMemoryUpdate.NotModelled.class);
  }
}
