package io.writeguard.app.lab.readinfo;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.bson.Document;

class ReadInfoLayoutTest {

  @Property
  void markCodesAreDistinctPerDocumentItemAndUser(
      @ForAll @LongRange(min = 0, max = Integer.MAX_VALUE) long gen,
      @ForAll @IntRange(min = 0, max = ReadInfoLayout.MAX_DOCS - 1) int slot,
      @ForAll @IntRange(min = 0, max = 255) int item,
      @ForAll @IntRange(min = 0, max = ReadInfoLayout.MAX_CLIENTS - 1) int user) {
    long code = ReadInfoLayout.code(gen, slot, item, user);
    assertThat(code >>> 32).isEqualTo(gen);
    assertThat((code >>> 22) & 0x3FF).isEqualTo(slot);
    assertThat((code >>> 14) & 0xFF).isEqualTo(item);
    assertThat(code & 0x3FFF).isEqualTo(user);
  }

  @Property
  void documentIdsParseBack(
      @ForAll @LongRange(min = 0, max = Integer.MAX_VALUE) long gen,
      @ForAll @IntRange(min = 0, max = ReadInfoLayout.MAX_DOCS - 1) int slot) {
    assertThat(ReadInfoLayout.parseDocId(ReadInfoLayout.docId(gen, slot)))
        .containsExactly(gen, slot);
  }

  @Property
  void foreignIdsAndUsersAreIgnored(@ForAll String text) {
    if (!text.matches("g\\d{1,10}-d\\d{1,4}")) {
      assertThat(ReadInfoLayout.parseDocId(text)).isNull();
    }
    if (!text.matches("u\\d{1,5}")) {
      assertThat(ReadInfoLayout.parseUser(text)).isEqualTo(-1);
    }
  }

  @Property
  void aFreshDocumentHoldsNoMarksAndEveryItemCanBeMarked(
      @ForAll @IntRange(min = 0, max = 3) int key,
      @ForAll @IntRange(min = 0, max = 1) int skey,
      @ForAll @IntRange(min = 0, max = 3) int index,
      @ForAll @IntRange(min = 0, max = 100) int client) {
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
}
