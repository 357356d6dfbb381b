package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Which indexes hold two callers of a group-commit round apart: every one that can refuse a
 * write, and only those ({@link WriteConstraints}). The merge's use of them is
 * {@link MergedWriteTruthTest}'s.
 */
class WriteConstraintsTest {

  private static WriteConstraints of(String... indexes) {
    return WriteConstraints.of(java.util.Arrays.stream(indexes).map(BsonDocument::parse)
        .toList());
  }

  private static List<Integer> touched(WriteConstraints c, String path) {
    return c.indexesTouchedBy(path.isEmpty() ? new String[0] : path.split("\\.", -1));
  }

  @Test
  void idAndPlainSingleFieldIndexesRefuseNothing() {
    WriteConstraints c = of("{v: 2, key: {_id: 1}, name: '_id_'}",
        "{v: 2, key: {a: 1}, name: 'a_1'}", "{v: 2, key: {b: -1}, name: 'b_-1'}",
        "{v: 2, key: {c: 1.0}, name: 'c_1', sparse: true}",
        "{v: 2, key: {t: 1}, name: 't_1', expireAfterSeconds: 60}",
        "{v: 2, key: {_id: 'hashed'}, name: '_id_hashed'}");
    assertThat(c.indexes()).isEmpty();
  }

  @Test
  void everyIndexThatCanRefuseAWriteIsOne() {
    WriteConstraints c = of(
        "{v: 2, key: {u: 1}, name: 'u_1', unique: true}",
        "{v: 2, key: {loc: '2dsphere'}, name: 'loc_2dsphere'}",
        "{v: 2, key: {flat: '2d'}, name: 'flat_2d'}",
        "{v: 2, key: {h: 'hashed'}, name: 'h_hashed'}",
        "{v: 2, key: {x: 1, y: -1}, name: 'x_1_y_-1'}",
        "{v: 2, key: {p: 1}, name: 'p_1', partialFilterExpression: {q: {$gt: 1}}}",
        "{v: 2, key: {'sub.$**': 1}, name: 'sub.$**_1'}");
    assertThat(c.indexes()).hasSize(7);
    assertThat(touched(c, "u")).containsExactly(0);
    assertThat(touched(c, "loc.coordinates.0")).containsExactly(1);
    assertThat(touched(c, "flat")).containsExactly(2);
    assertThat(touched(c, "h")).containsExactly(3);
    assertThat(touched(c, "y")).containsExactly(4);
    assertThat(touched(c, "q")).as("the partial filter's field").containsExactly(5);
    assertThat(touched(c, "sub.deep.er")).containsExactly(6);
    assertThat(touched(c, "other")).isEmpty();
    assertThat(touched(c, "")).as("a replacement changes every index").hasSize(7);
  }

  @Test
  void aTextIndexCoversItsWeightedFieldsAndItsLanguageField() {
    WriteConstraints c = of("{v: 2, key: {_fts: 'text', _ftsx: 1}, name: 'body_text',"
        + " weights: {body: 1, 'meta.title': 2}, language_override: 'lang',"
        + " textIndexVersion: 3}");
    assertThat(touched(c, "body")).containsExactly(0);
    assertThat(touched(c, "meta.title")).containsExactly(0);
    assertThat(touched(c, "lang")).containsExactly(0);
    assertThat(touched(c, "meta.other")).isEmpty();
    WriteConstraints defaults = of("{v: 2, key: {_fts: 'text', _ftsx: 1}, name: 't',"
        + " weights: {body: 1}}");
    assertThat(touched(defaults, "language")).containsExactly(0);
  }

  @Test
  void aTextIndexCoversTheLanguageFieldOfEveryEmbeddedDocumentOnTheWayToAWeightedField() {
    // The server's text key generation reads the language field of every document it descends
    // into on the way to a weighted field (comments, each element of comments when it is an
    // array), and refuses an unsupported language there (17262), not only at the top level.
    WriteConstraints c = of("{v: 2, key: {_fts: 'text', _ftsx: 1}, name: 'c_text',"
        + " weights: {'comments.body.text': 1}, language_override: 'lang',"
        + " textIndexVersion: 3}");
    assertThat(touched(c, "lang")).containsExactly(0);
    assertThat(touched(c, "comments.lang")).containsExactly(0);
    assertThat(touched(c, "comments.3.lang")).as("inside an array element").containsExactly(0);
    assertThat(touched(c, "comments.body.lang")).containsExactly(0);
    assertThat(touched(c, "comments.other")).isEmpty();
  }

  @Test
  void onlyAUniqueOrPartialIndexJudgesTheNumbersAtThePathEveryWriterRaises() {
    String[] version = {"version"};
    assertThat(of("{v: 2, key: {owner: 1, version: -1}, name: 'owner_1_version_-1'}")
        .judgesNumbersAt(version)).as("compound: a number is never one of two arrays").isFalse();
    assertThat(of("{v: 2, key: {version: 1}, name: 'version_1'}").judgesNumbersAt(version))
        .isFalse();
    assertThat(of("{v: 2, key: {owner: 1, version: 1}, name: 'u', unique: true}")
        .judgesNumbersAt(version)).isTrue();
    assertThat(of("{v: 2, key: {loc: '2dsphere'}, name: 'p',"
        + " partialFilterExpression: {version: {$lt: 5}}}").judgesNumbersAt(version)).isTrue();
    assertThat(of("{v: 2, key: {tag: 1}, name: 'tag_1', unique: true}")
        .judgesNumbersAt(version)).isFalse();
  }

  @Test
  void aWildcardTextOrWildcardIndexCoversEveryField() {
    WriteConstraints c = of("{v: 2, key: {_fts: 'text', _ftsx: 1}, name: 'all_text',"
        + " weights: {'$**': 1}}", "{v: 2, key: {'$**': 1}, name: '$**_1'}");
    assertThat(touched(c, "anything.at.all")).containsExactly(0, 1);
  }
}
