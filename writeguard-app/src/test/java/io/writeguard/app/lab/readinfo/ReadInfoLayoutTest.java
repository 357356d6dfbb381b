package io.writeguard.app.lab.readinfo;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.lab.readinfo.ReadInfoScenario.LongList;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.ReadInfoDocs;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.ReadInfoLayout;
import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReadInfoLayoutTest {

  private static final Gen<Long> GENERATIONS = Gen.longs(0, ReadInfoLayout.MAX_GENERATIONS - 1);
  private static final Gen<Integer> SLOTS = Gen.ints(0, ReadInfoLayout.MAX_DOCS - 1);

  @PropertyTest
  @MethodSource("generationsSlotsItemsAndUsers")
  void markCodesAreDistinctPerDocumentItemUserAndRepeat(long gen, int slot, int item, int user,
      int repeat) {
    long code = ReadInfoLayout.code(gen, slot, item, user, repeat);
    assertThat(code >>> 38).isEqualTo(gen);
    assertThat((code >>> 28) & 0x3FF).isEqualTo(slot);
    assertThat((code >>> 23) & 0x1F).isEqualTo(item);
    assertThat((code >>> 13) & 0x3FF).isEqualTo(user);
    assertThat(code & 0x1FFF).isEqualTo(repeat);
    assertThat(ReadInfoLayout.parseUser(ReadInfoLayout.user(user, repeat)))
        .containsExactly(user, repeat);
  }

  @PropertyTest
  @MethodSource("generationsAndSlots")
  void documentIdsParseBack(long gen, int slot) {
    assertThat(ReadInfoLayout.parseDocId(ReadInfoLayout.docId(gen, slot)))
        .containsExactly(gen, slot);
  }

  @PropertyTest
  @MethodSource("foreignText")
  void foreignIdsAndUsersAreIgnored(String text) {
    if (!text.matches("g\\d{1,10}-d\\d{1,4}")) {
      assertThat(ReadInfoLayout.parseDocId(text)).isNull();
    }
    if (!text.matches("u(0|[1-9]\\d{0,3})(r[1-9]\\d{0,3})?")) {
      assertThat(ReadInfoLayout.parseUser(text)).isNull();
    }
  }

  @PropertyTest
  @MethodSource("keysSkeysIndexesAndClients")
  void aFreshDocumentHoldsNoMarksAndEveryItemCanBeMarked(
      int key, int skey, int index, int client) {
    Document doc = ReadInfoDocs.fresh("g5-d2");
    LongList none = new LongList();
    ReadInfoDocs.collectMarks(doc, none);
    assertThat(none.sortedDistinct()).isEmpty();

    long code = ReadInfoLayout.code(5, 2, ReadInfoLayout.item(key, skey, index), client, 0);
    Mark m = new Mark("g5-d2", ReadInfoLayout.KEYS.get(key), ReadInfoLayout.SKEYS.get(skey),
        index, ReadInfoLayout.user(client, 0), code);
    assertThat(ReadInfoDocs.markRead(doc, m)).isTrue();
    assertThat(ReadInfoDocs.markRead(doc, m)).isFalse();
    LongList one = new LongList();
    ReadInfoDocs.collectMarks(doc, one);
    assertThat(one.sortedDistinct()).containsExactly(code);
  }

  static Stream<Arguments> generationsSlotsItemsAndUsers() {
    return Generated.tuples(GENERATIONS, SLOTS, Gen.ints(0, ReadInfoLayout.ITEMS_PER_DOC - 1),
        Gen.ints(0, ReadInfoLayout.MAX_CLIENTS - 1), Gen.ints(0, ReadInfoLayout.MAX_REPEATS - 1));
  }

  static Stream<Arguments> generationsAndSlots() {
    return Generated.tuples(GENERATIONS, SLOTS);
  }

  /** Arbitrary text, and near misses glued together from the pieces ids and users are made of. */
  static Stream<Named<String>> foreignText() {
    Gen<String> pieces = Gen.elements("g7-d42", "u42", "g", "-d", "u", "-", "7", "42", "12345",
        "12345678901", "\u0661", " ", "\n", "x");
    Gen<String> nearMiss = Gen.listOf(pieces, 0, 6).map(list -> String.join("", list));
    return Generated.cases(Gen.oneOf(Gen.text(255), nearMiss)
        .withEdges("g1-d", "g-d1", "g12345678901-d1", "g1-d12345", "G1-d1", "g1-d1\n", "u",
            "u123456", "U1", "u\u0661", "u1 ", "u1r0", "u01", "u1r01", "u1024", "u1r8192"));
  }

  static Stream<Arguments> keysSkeysIndexesAndClients() {
    return Generated.tuples(Gen.ints(0, 3), Gen.ints(0, 1), Gen.ints(0, 3), Gen.ints(0, 100));
  }
}
