package io.writeguard.version;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Updates;
import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class VersionGuardTest {
  private final VersionGuard guard = VersionGuard.of(VersionPolicy.defaults());

  @ParameterizedTest
  @ValueSource(strings = {"$set", "$unset", "$setOnInsert", "$inc", "$mul", "$min", "$max",
      "$currentDate", "$push", "$addToSet", "$pull", "$pop", "$bit"})
  void rejectsEveryOperatorOnTheVersionField(String operator) {
    Document update = new Document(operator, new Document("version", 2L));
    assertThatThrownBy(() -> guard.checkUpdate(update))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining(operator)
        .hasMessageContaining("'version'")
        .satisfies(e -> {
          VersionFieldException v = (VersionFieldException) e;
          org.assertj.core.api.Assertions.assertThat(v.operator()).isEqualTo(operator);
          org.assertj.core.api.Assertions.assertThat(v.path()).isEqualTo("version");
        });
  }

  @Test
  void rejectsPathsUnderTheVersionField() {
    assertThatThrownBy(() -> guard.checkUpdate(Updates.set("version.x", 1)))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("$set touches 'version.x'");
    assertThatThrownBy(() -> guard.checkUpdate(Updates.unset("version.$[]")))
        .hasMessageStartingWith("$unset touches 'version.$[]'");
  }

  @Test
  void rejectsRenamingFromOrOntoTheVersionField() {
    assertThatThrownBy(() -> guard.checkUpdate(Updates.rename("version", "old")))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("$rename touches 'version'");
    assertThatThrownBy(() -> guard.checkUpdate(Updates.rename("rev", "version")))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("$rename touches 'version'")
        .hasMessageContaining("'rev' would be renamed onto the version field");
    assertThatThrownBy(() -> guard.checkUpdate(Updates.rename("rev", "version.n")))
        .hasMessageStartingWith("$rename touches 'version.n'");
  }

  @Test
  void incOfTheVersionSaysTheLibraryDoesIt() {
    assertThatThrownBy(() -> guard.checkUpdate(
            Updates.combine(Updates.inc("count", 1), Updates.inc("version", 1))))
        .hasMessageContaining("the library increments the version itself");
  }

  @Test
  void rejectsReplacementCarryingTheVersion() {
    assertThatThrownBy(() -> guard.checkUpdate(new Document("name", "x").append("version", 3)))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageStartingWith("replacement touches 'version'");
    assertThatThrownBy(() -> guard.checkReplacement(new Document("version", 3)))
        .isInstanceOf(VersionFieldException.class);
    assertThatCode(() -> guard.checkReplacement(new Document("name", "x")))
        .doesNotThrowAnyException();
  }

  /**
   * A replacement holding a value the driver's default codecs cannot encode (a UUID: they refuse
   * to guess its representation) is checked by its fields, which need no encoding.
   */
  @Test
  void aReplacementIsCheckedByItsFieldsWhateverItsValuesAre() {
    java.util.UUID ref = java.util.UUID.randomUUID();
    assertThatThrownBy(() -> guard.checkReplacement(
        new Document("ref", ref).append("version", 3)))
        .isInstanceOf(VersionFieldException.class);
    assertThatCode(() -> guard.checkReplacement(new Document("ref", ref)))
        .doesNotThrowAnyException();
  }

  @Test
  void allowsOtherFieldsIncludingNestedOnesNamedVersion() {
    assertThatCode(() -> guard.checkUpdate(Updates.combine(
            Updates.set("name", "x"),
            Updates.set("items.0.version", 4),
            Updates.set("versions", 1),
            Updates.inc("count", 1),
            Updates.push("log", "v"),
            Updates.rename("a", "versionNote"))))
        .doesNotThrowAnyException();
  }

  @Test
  void honoursACustomField() {
    VersionGuard custom = VersionGuard.of(VersionPolicy.builder().field("rev").build());
    assertThatCode(() -> custom.checkUpdate(Updates.set("version", 1))).doesNotThrowAnyException();
    assertThatThrownBy(() -> custom.checkUpdate(Updates.set("rev", 1)))
        .hasMessageStartingWith("$set touches 'rev'");
  }

  @Test
  void rejectsMalformedUpdates() {
    assertThatThrownBy(() -> guard.checkUpdate(new Document("$set", new Document("a", 1))
            .append("b", 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mixes operators [$set] with plain fields [b]");
    assertThatThrownBy(() -> guard.checkUpdate(new Document("$set", 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("$set needs a document of paths, was");
  }

  @PropertyTest
  @MethodSource("alphaSuffixes")
  void everyPathUnderTheFieldIsRejected(String suffix) {
    assertThatThrownBy(() -> guard.checkUpdate(Updates.set("version." + suffix, 1)))
        .isInstanceOf(VersionFieldException.class);
  }

  @PropertyTest
  @MethodSource("alphaSuffixes")
  void pathsThatOnlyShareAPrefixAreAllowed(String suffix) {
    assertThatCode(() -> guard.checkUpdate(Updates.set("version" + suffix, 1)))
        .doesNotThrowAnyException();
    assertThatCode(() -> guard.checkUpdate(Updates.set(suffix + ".version", 1)))
        .doesNotThrowAnyException();
  }

  static Stream<Named<String>> alphaSuffixes() {
    return Generated.cases(Gen.strings(
        Gen.chars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), 1, 12));
  }
}
