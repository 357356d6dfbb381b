package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.junit.jupiter.api.Test;

/**
 * The merged write's rules, one by one, on what it sends: the update and the guards, or the
 * caller it leaves for the next round. (Whether what it sends is right on a server, with a
 * foreign write in between, is {@link MergedWritePropertyTest}'s question.)
 */
class MergedWriteTest {

  /** The round as {@link BatchUpdate} runs it: the model's state, then the merge. */
  static final class Round {
    final BsonDocument read;
    final List<BsonDocument> accepted = new ArrayList<>();
    BsonDocument state;
    MergedWrite merged;
    int writers;

    Round(String read) {
      this.read = BsonDocument.parse(read);
      this.state = this.read;
      this.merged = MergedWrite.ofOperators(this.read);
    }

    /** True when the caller joined the round. */
    boolean add(String update) {
      BsonDocument u = BsonDocument.parse(update);
      BsonDocument next = InMemoryUpdate.apply(state, u);
      if (!merged.add(u, next)) {
        return false;
      }
      next.put("version", new BsonInt64(writers + 1));
      state = next;
      writers++;
      accepted.add(u);
      return true;
    }

    String update() {
      return merged.update("version", writers, state).toJson();
    }

    String guard() {
      BsonDocument guard = merged.guard();
      return guard == null ? null : guard.toJson();
    }
  }

  private static String json(String relaxed) {
    return BsonDocument.parse(relaxed).toJson();
  }

  @Test
  void incrementsOfOneCounterAreAddedUnderATypeGuard() {
    Round r = new Round("{_id: 1, n: 5, version: 0}");
    assertThat(r.add("{$inc: {n: {$numberLong: '1'}}}")).isTrue();
    assertThat(r.add("{$inc: {n: {$numberLong: '2'}}}")).isTrue();
    assertThat(r.add("{$inc: {n: 3}}")).isTrue();
    assertThat(r.update()).isEqualTo(json("{$inc: {n: {$numberLong: '6'}, version: {$numberLong: '3'}}}"));
    assertThat(r.guard()).isEqualTo(json("{n: {$not: {$type: ['double', 'decimal']}}}"));
  }

  @Test
  void aSingleIncrementKeepsItsOperandAndNeedsNoTypeGuard() {
    Round r = new Round("{_id: 1, n: 5.5, version: 0}");
    assertThat(r.add("{$inc: {n: 0.5}}")).isTrue();
    assertThat(r.add("{$set: {other: 1}}")).isTrue();
    assertThat(r.update()).isEqualTo(json("{$inc: {n: 0.5, version: {$numberLong: '2'}}, $set: {other: 1}}"));
    // other is new, so n must not be: two new keys would be ordered by the server's rule
    assertThat(r.guard()).isEqualTo(json("{n: {$exists: true}}"));
  }

  @Test
  void incrementsAreNotAddedWhenRoundingOrOverflowCouldTellThemApart() {
    assertThat(new Round("{_id: 1, n: 1.5}").add("{$inc: {n: 1}}")).isTrue();
    Round onDouble = new Round("{_id: 1, n: 1.5}");
    onDouble.add("{$inc: {n: 1}}");
    assertThat(onDouble.add("{$inc: {n: 1}}")).as("stored double").isFalse();
    Round byDouble = new Round("{_id: 1, n: 1}");
    byDouble.add("{$inc: {n: 1}}");
    assertThat(byDouble.add("{$inc: {n: 0.5}}")).as("double amount").isFalse();
    Round signs = new Round("{_id: 1, n: 1}");
    signs.add("{$inc: {n: 1}}");
    assertThat(signs.add("{$inc: {n: -1}}")).as("amounts of two signs").isFalse();
    Round int32 = new Round("{_id: 1, n: 1}");
    int32.add("{$inc: {n: 2147483000}}");
    assertThat(int32.add("{$inc: {n: 1000}}")).as("an int32 sum past int32").isFalse();
  }

  @Test
  void pushesAndAddToSetsAreConcatenatedIntoOneEach() {
    Round r = new Round("{_id: 1, log: [], tags: [1]}");
    assertThat(r.add("{$push: {log: 'a'}}")).isTrue();
    assertThat(r.add("{$push: {log: {$each: ['b', 'c']}}}")).isTrue();
    assertThat(r.add("{$addToSet: {tags: 2}}")).isTrue();
    assertThat(r.add("{$addToSet: {tags: 3}}")).isTrue();
    assertThat(r.update()).isEqualTo(json("{$push: {log: {$each: ['a', 'b', 'c']}},"
        + " $addToSet: {tags: {$each: [2, 3]}}, $inc: {version: {$numberLong: '4'}}}"));
    assertThat(r.guard()).isEqualTo(json("{log: {$exists: true}, tags: {$exists: true}}"));
  }

  @Test
  void aPathACallerSetIsSentAsOneSetOfItsFinalValue() {
    Round r = new Round("{_id: 1, a: 0}");
    assertThat(r.add("{$set: {a: 1}}")).isTrue();
    assertThat(r.add("{$inc: {a: 5}}")).isTrue();
    assertThat(r.add("{$set: {sub: {x: 1}}}")).isTrue();
    assertThat(r.add("{$inc: {'sub.x': 1}, $set: {'sub.y': 2}}")).isTrue();
    assertThat(r.update()).isEqualTo(json(
        "{$set: {a: 6, sub: {x: 2, y: 2}}, $inc: {version: {$numberLong: '4'}}}"));
  }

  @Test
  void minAndMaxKeepTheWinningOperand() {
    Round r = new Round("{_id: 1, low: 10, high: 0}");
    r.add("{$min: {low: 5}}");
    r.add("{$min: {low: 7}}");
    r.add("{$max: {high: 3}}");
    r.add("{$max: {high: 9}}");
    assertThat(r.update()).isEqualTo(json(
        "{$min: {low: 5}, $max: {high: 9}, $inc: {version: {$numberLong: '4'}}}"));
  }

  @Test
  void whatDoesNotComposeIsLeftForTheNextRound() {
    List<List<String>> pairs = List.of(
        List.of("{$inc: {n: 1}}", "{$set: {n: 5}}"), // an operator, then a set
        List.of("{$inc: {n: 1}}", "{$mul: {n: 2}}"), // two operators on one path
        List.of("{$mul: {n: 2}}", "{$mul: {n: 2}}"),
        List.of("{$pull: {arr: 1}}", "{$pull: {arr: 2}}"),
        List.of("{$inc: {'sub.x': 1}}", "{$set: {sub: {}}}"), // above another's path
        List.of("{$push: {arr: 1}}", "{$set: {'arr.0': 2}}"), // inside another's path
        List.of("{$unset: {n: ''}}", "{$set: {n: 1}}"), // re-created after an unset
        List.of("{$set: {n: 1}}", "{$unset: {n: ''}}"), // set, then unset
        List.of("{$set: {new1: 1}}", "{$set: {new2: 1}}")); // two new keys in one document
    for (List<String> pair : pairs) {
      Round r = new Round("{_id: 1, n: 1, arr: [1, 2], sub: {x: 1}}");
      assertThat(r.add(pair.get(0))).as(pair.get(0)).isTrue();
      assertThat(r.add(pair.get(1))).as("%s after %s", pair.get(1), pair.get(0)).isFalse();
      assertThat(r.writers).isEqualTo(1);
    }
  }

  @Test
  void aRefusedCallerLeavesTheMergeAsItWas() {
    Round r = new Round("{_id: 1, n: 1, m: 1}");
    r.add("{$inc: {n: 1}}");
    String before = r.update();
    assertThat(r.add("{$set: {m: 2}, $mul: {n: 3}}")).isFalse();
    assertThat(r.update()).isEqualTo(before);
    assertThat(r.guard()).isNull();
  }

  @Test
  void aCallerRefusedAfterSomeOfItsChangesMergedLeavesNoTraceOfThem() {
    Round r = new Round("{_id: 1, n: 1, arr: [1, 2], log: [], sub: {x: 1}}");
    assertThat(r.add("{$inc: {n: 1}, $pull: {arr: 1}, $push: {log: 'a'}}")).isTrue();
    String before = r.update();
    String guardBefore = r.guard();
    // its $inc composes (and guards n), its $push appends, then its $pull is refused
    assertThat(r.add("{$inc: {n: 1}, $push: {log: 'b'}, $set: {'sub.y': 1}, $pull: {arr: 2}}"))
        .isFalse();
    assertThat(r.update()).isEqualTo(before);
    assertThat(r.guard()).isEqualTo(guardBefore);
    assertThat(r.add("{$inc: {n: 5}, $push: {log: 'c'}}")).isTrue();
    assertThat(r.update()).isEqualTo(json("{$inc: {n: 6, version: {$numberLong: '2'}},"
        + " $pull: {arr: 1}, $push: {log: {$each: ['a', 'c']}}}"));
  }

  @Test
  void newKeysOfSeveralCallersInOneDocumentAreRequiredToExistButOne() {
    Round r = new Round("{_id: 1, a: 1, sub: {x: 1}}");
    assertThat(r.add("{$set: {'sub.new': 1}}")).isTrue();
    assertThat(r.add("{$set: {'sub.x': 2}}")).isTrue();
    assertThat(r.add("{$set: {'sub.other': 1}}")).as("a second missing key in sub").isFalse();
    // sub must not be an array, or the query path sub.x could match inside its elements
    assertThat(r.guard()).isEqualTo(
        json("{'sub.x': {$exists: true}, sub: {$not: {$type: 'array'}}}"));
  }

  @Test
  void aReplacementJoinsOnlyAsTheFirstWriter() {
    assertThat(new Round("{_id: 1}").merged.addReplacement(new BsonDocument())).isFalse();
    MergedWrite replacing = MergedWrite.ofReplacement();
    assertThat(replacing.addReplacement(new BsonDocument())).isTrue();
    assertThat(replacing.add(BsonDocument.parse("{$mul: {n: 2}}"), new BsonDocument())).isTrue();
    assertThat(replacing.replacing()).isTrue();
  }
}
