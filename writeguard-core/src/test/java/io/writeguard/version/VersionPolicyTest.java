package io.writeguard.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VersionPolicyTest {
  private final VersionPolicy policy = VersionPolicy.defaults();

  private static BsonDocument json(String json) {
    return BsonDocument.parse(json);
  }

  @Test
  void defaults() {
    assertThat(policy.field()).isEqualTo("version");
    assertThat(policy.missingVersion()).isEqualTo(VersionPolicy.MissingVersion.ADOPT);
    assertThat(VersionPolicy.INITIAL_VERSION).isZero();
  }

  @Test
  void readsInt64AndInt32() {
    assertThat(policy.versionOf(1, json("{_id: 1, version: {$numberLong: '7'}}")))
        .hasValue(7);
    assertThat(policy.versionOf(1, json("{_id: 1, version: 7}"))).hasValue(7);
    assertThat(policy.versionOf(1, new Document("version", 7L))).hasValue(7);
    assertThat(policy.versionOf(1, new Document("version", 7))).hasValue(7);
  }

  @Test
  void aMissingVersionIsEmptyOrRefused() {
    assertThat(policy.versionOf(1, json("{_id: 1}"))).isEqualTo(OptionalLong.empty());
    assertThat(policy.expectedVersion(1, json("{_id: 1}"))).isEmpty();
    VersionPolicy refusing = VersionPolicy.builder()
        .missingVersion(VersionPolicy.MissingVersion.REFUSE).build();
    assertThatThrownBy(() -> refusing.expectedVersion(42, json("{_id: 42}")))
        .isInstanceOf(InvalidVersionException.class)
        .hasMessageContaining("_id=42")
        .hasMessageContaining("'version'")
        .hasMessageContaining("refuses legacy documents")
        .extracting(e -> ((InvalidVersionException) e).problem())
        .isEqualTo(InvalidVersionException.Problem.MISSING);
  }

  @Test
  void refusesUnusableVersionsNamingWhatWasFound() {
    assertProblem("{version: null}", InvalidVersionException.Problem.NULL, "found: null");
    assertProblem("{version: '10'}", InvalidVersionException.Problem.NOT_AN_INTEGER,
        "string \"10\"");
    assertProblem("{version: 3.0}", InvalidVersionException.Problem.NOT_AN_INTEGER,
        "double 3.0");
    assertProblem("{version: -1}", InvalidVersionException.Problem.NEGATIVE, "found: -1");
    assertProblem("{version: {$numberLong: '9223372036854775807'}}",
        InvalidVersionException.Problem.AT_MAXIMUM, "cannot be incremented");
    assertThatThrownBy(() -> policy.versionOf(5, new Document("version", "3")))
        .hasMessageContaining("String '3'");
  }

  /** A refused integral version is shown as its digits, whatever its type and form. */
  @Test
  void aRefusedIntegralVersionShowsItsDigits() {
    assertProblem("{version: {$numberLong: '-12'}}", InvalidVersionException.Problem.NEGATIVE,
        "found: -12");
    assertProblem("{version: {$numberLong: '9223372036854775807'}}",
        InvalidVersionException.Problem.AT_MAXIMUM, "found: 9223372036854775807");
    for (Object negative : java.util.List.of(-3, -3L)) {
      assertThatThrownBy(() -> policy.versionOf(5, new Document("version", negative)))
          .hasMessageContaining("found: -3")
          .extracting(e -> ((InvalidVersionException) e).problem())
          .isEqualTo(InvalidVersionException.Problem.NEGATIVE);
    }
    assertThatThrownBy(() -> policy.versionOf(5, new Document("version", Long.MAX_VALUE)))
        .hasMessageContaining("found: 9223372036854775807")
        .extracting(e -> ((InvalidVersionException) e).problem())
        .isEqualTo(InvalidVersionException.Problem.AT_MAXIMUM);
  }

  private void assertProblem(String json, InvalidVersionException.Problem problem, String text) {
    for (BsonDocument doc : java.util.List.of(json(json), raw(json))) {
      assertThatThrownBy(() -> policy.versionOf(5, doc))
          .isInstanceOf(InvalidVersionException.class)
          .hasMessageContaining("_id=5")
          .hasMessageContaining(text)
          // --fix repairs what it can; a version at the maximum needs a person (issue 35)
          .hasMessageContaining(problem == InvalidVersionException.Problem.AT_MAXIMUM
              ? "AT_MAXIMUM, which needs a person" : "writeguard audit --fix")
          .extracting(e -> ((InvalidVersionException) e).problem())
          .isEqualTo(problem);
    }
  }

  private static org.bson.RawBsonDocument raw(String json) {
    return org.bson.RawBsonDocument.parse(json);
  }

  /** Reads come back raw: a raw document reads as the same document decoded. */
  @Test
  void aRawDocumentReadsAsTheSameDocumentDecoded() {
    assertThat(policy.versionOf(1, raw("{_id: 1, version: {$numberLong: '7'}}"))).hasValue(7);
    assertThat(policy.versionOf(1, raw("{_id: 1, a: {version: 3}, version: 7}"))).hasValue(7);
    assertThat(policy.versionOf(1, raw("{_id: 1, a: {version: 3}}"))).isEmpty();
    assertThat(policy.expectedVersion(1, raw("{_id: 1}"))).isEmpty();
    VersionPolicy refusing = VersionPolicy.builder()
        .missingVersion(VersionPolicy.MissingVersion.REFUSE).build();
    assertThatThrownBy(() -> refusing.expectedVersion(42, raw("{_id: 42}")))
        .extracting(e -> ((InvalidVersionException) e).problem())
        .isEqualTo(InvalidVersionException.Problem.MISSING);
  }

  @Test
  void filtersAndIncrement() {
    var registry = MongoClientSettings.getDefaultCodecRegistry();
    assertThat(policy.filter(9, 4).toBsonDocument(BsonDocument.class, registry))
        .isEqualTo(json("{_id: 9, version: {$numberLong: '4'}}"));
    assertThat(policy.missingFilter(9).toBsonDocument(BsonDocument.class, registry))
        .isEqualTo(json("{_id: 9, version: {$exists: false}}"));
    assertThat(policy.increment().toBsonDocument(BsonDocument.class, registry))
        .isEqualTo(json("{$inc: {version: {$numberLong: '1'}}}"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "$v", "a.b", "_id", "a\u0000b"})
  void rejectsBadFieldNames(String field) {
    assertThatThrownBy(() -> VersionPolicy.builder().field(field))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("version field must");
  }

  @Test
  void acceptsACustomFieldName() {
    assertThat(VersionPolicy.builder().field("rev").build().field()).isEqualTo("rev");
  }
}
