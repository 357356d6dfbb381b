package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Every case of the fidelity corpus through {@link InMemoryUpdate#apply}: each must come out
 * RIGHT (exactly MongoDB's document: values, BSON types, field order, array lengths) or
 * REFUSED ({@link InMemoryUpdate.NotModelled}). Anything else is WRONG: another document, a
 * document where MongoDB answers an error, or another exception. Group commit shows later
 * callers what the model computed, so one WRONG case is one way to corrupt data.
 */
class InMemoryUpdateCorpusTest {
  /** The operators the model covers; each must be modelled (RIGHT) somewhere in the corpus. */
  private static final List<String> FAMILIES = List.of("$set", "$unset", "$inc", "$mul",
      "$min", "$max", "$push", "$addToSet", "$pull");

  enum Outcome { RIGHT, REFUSED, WRONG }

  record Result(InMemoryCorpus.Case c, Outcome outcome, String detail) {}

  static Result run(InMemoryCorpus.Case c) {
    BsonDocument before = c.doc().clone();
    BsonDocument got;
    try {
      got = InMemoryUpdate.apply(c.doc(), c.update());
    } catch (InMemoryUpdate.NotModelled e) {
      return new Result(c, Outcome.REFUSED, e.getMessage());
    } catch (RuntimeException e) {
      return new Result(c, Outcome.WRONG, "threw " + e);
    }
    if (!InMemoryCorpus.exactlyEqual(before, c.doc())) {
      return new Result(c, Outcome.WRONG, "changed the document it was given");
    }
    if (c.expected() == null) {
      return new Result(c, Outcome.WRONG,
          "computed " + InMemoryCorpus.json(got) + " where MongoDB answers " + c.error());
    }
    if (!InMemoryCorpus.exactlyEqual(got, c.expected())) {
      return new Result(c, Outcome.WRONG, "computed " + InMemoryCorpus.json(got)
          + ", MongoDB leaves " + InMemoryCorpus.json(c.expected()));
    }
    return new Result(c, Outcome.RIGHT, "");
  }

  @Test
  void everyCaseIsRightOrRefused() {
    List<InMemoryCorpus.Case> cases = InMemoryCorpus.load();
    Map<String, int[]> byFamily = new TreeMap<>();
    int[] total = new int[3];
    List<Result> wrong = new ArrayList<>();
    for (InMemoryCorpus.Case c : cases) {
      Result r = run(c);
      total[r.outcome().ordinal()]++;
      byFamily.computeIfAbsent(c.family(), f -> new int[3])[r.outcome().ordinal()]++;
      if (r.outcome() == Outcome.WRONG) {
        wrong.add(r);
      }
    }
    System.out.printf("corpus: %d cases, %d right, %d refused, %d wrong%n", cases.size(),
        total[0], total[1], total[2]);
    byFamily.forEach((f, n) -> System.out.printf("  %-18s %3d right, %3d refused, %d wrong%n",
        f, n[0], n[1], n[2]));
    for (Result r : wrong) {
      System.out.printf("  WRONG %s: %s %s on %s: %s%n", r.c().name(),
          InMemoryCorpus.json(r.c().update()), "", InMemoryCorpus.json(r.c().doc()), r.detail());
    }

    assertThat(cases).as("corpus size").hasSizeGreaterThanOrEqualTo(150);
    assertThat(wrong).as("cases the model computes differently from MongoDB")
        .extracting(r -> r.c().name() + ": " + r.detail()).isEmpty();
    for (String family : FAMILIES) {
      assertThat(byFamily.getOrDefault(family, new int[3])[Outcome.RIGHT.ordinal()])
          .as("modelled (RIGHT) cases of %s", family).isPositive();
    }
  }

  @Test
  void caseNamesAreUniqueAndEveryCaseSaysWhereItCameFrom() {
    List<InMemoryCorpus.Case> cases = InMemoryCorpus.load();
    assertThat(cases).extracting(InMemoryCorpus.Case::name).doesNotHaveDuplicates();
    assertThat(cases).allSatisfy(c -> assertThat(c.source()).isNotBlank());
  }
}
