package io.writeguard.app.lab.readinfo;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReadInfoLayoutTest {

  private static final Gen<Long> GENERATIONS = Gen.longs(0, Integer.MAX_VALUE);
  private static final Gen<Integer> SLOTS = Gen.ints(0, ReadInfoLayout.MAX_DOCS - 1);

  @PropertyTest
  @MethodSource("generationsSlotsItemsAndUsers")
  void markCodesAreDistinctPerDocumentItemAndUser(long gen, int slot, int item, int user) {
    long code = ReadInfoLayout.code(gen, slot, item, user);
    assertThat(code >>> 32).isEqualTo(gen);
    assertThat((code >>> 22) & 0x3FF).isEqualTo(slot);
    assertThat((code >>> 14) & 0xFF).isEqualTo(item);
    assertThat(code & 0x3FFF).isEqualTo(user);
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
    if (!text.matches("u\\d{1,5}")) {
      assertThat(ReadInfoLayout.parseUser(text)).isEqualTo(-1);
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

    long code = ReadInfoLayout.code(5, 2, ReadInfoLayout.item(key, skey, index), client);
    Mark m = new Mark("g5-d2", ReadInfoLayout.KEYS.get(key), ReadInfoLayout.SKEYS.get(skey),
        index, ReadInfoLayout.user(client), code);
    assertThat(ReadInfoDocs.markRead(doc, m)).isTrue();
    assertThat(ReadInfoDocs.markRead(doc, m)).isFalse();
    LongList one = new LongList();
    ReadInfoDocs.collectMarks(doc, one);
    assertThat(one.sortedDistinct()).containsExactly(code);
  }

  static Stream<Arguments> generationsSlotsItemsAndUsers() {
    return Generated.tuples(GENERATIONS, SLOTS, Gen.ints(0, 255),
        Gen.ints(0, ReadInfoLayout.MAX_CLIENTS - 1));
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
            "u123456", "U1", "u\u0661", "u1 "));
  }

  static Stream<Arguments> keysSkeysIndexesAndClients() {
    return Generated.tuples(Gen.ints(0, 3), Gen.ints(0, 1), Gen.ints(0, 3), Gen.ints(0, 100));
  }
}
