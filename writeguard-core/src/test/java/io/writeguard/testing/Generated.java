package io.writeguard.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Generated cases for a {@link PropertyTest}: a generator's edge cases first, then
 * {@link #DEFAULT_COUNT} (or a given number of) random values drawn from a seeded
 * {@link Random}. Each value is wrapped in a {@link Named} whose name shows it with every
 * non-printable or non-ASCII char escaped, so a failing case names its input.
 *
 * <pre>{@code
 * @PropertyTest
 * @MethodSource("indexes")
 * void everyIndexRoundTrips(int index) { ... }
 *
 * static Stream<Named<Integer>> indexes() {
 *   return Generated.cases(Gen.ints(0, Integer.MAX_VALUE));
 * }
 * }</pre>
 *
 * <p>The seed is fixed, so every run checks the same cases and a failure is reproduced by
 * simply rerunning. To explore other cases, run with {@code -Dwriteguard.seed=<number>} or
 * {@code -Dwriteguard.seed=random}; the seed in use is printed in every failure message.
 *
 * <p>Stateless apart from the seed, which is read once per JVM; thread-safe.
 */
public final class Generated {
  /** Random cases per property when not given; as many as jqwik tried by default. */
  public static final int DEFAULT_COUNT = 1000;
  /** The system property that overrides the seed: a number ({@link Long#decode}) or "random". */
  public static final String SEED_PROPERTY = "writeguard.seed";

  private static final long DEFAULT_SEED = 20_260_611L;
  private static final long SEED = readSeed(System.getProperty(SEED_PROPERTY));

  private Generated() {}

  /** The seed every generator starts from in this JVM. */
  public static long seed() {
    return SEED;
  }

  /** How to rerun with the same cases, for failure messages. */
  static String seedNote() {
    return "seed " + SEED + (SEED == DEFAULT_SEED ? ", the default" : "")
        + "; rerun with -D" + SEED_PROPERTY + "=" + SEED;
  }

  /** The edge cases of {@code gen}, then {@link #DEFAULT_COUNT} random values. */
  public static <T> Stream<Named<T>> cases(Gen<T> gen) {
    return cases(DEFAULT_COUNT, gen);
  }

  /** The edge cases of {@code gen}, then {@code count} random values. */
  public static <T> Stream<Named<T>> cases(int count, Gen<T> gen) {
    Random random = new Random(SEED);
    List<Named<T>> out = new ArrayList<>(gen.edges().size() + count);
    for (T edge : gen.edges()) {
      out.add(Named.of(show(edge), edge));
    }
    for (int i = 0; i < count; i++) {
      T value = gen.next(random);
      out.add(Named.of(show(value), value));
    }
    return out.stream();
  }

  /** Argument lists for a test with one parameter per generator; see {@link #tuples(int, Gen...)}. */
  public static Stream<Arguments> tuples(Gen<?>... gens) {
    return tuples(DEFAULT_COUNT, gens);
  }

  /**
   * Argument lists for a test with one parameter per generator. First come edge rows: for each
   * generator, each of its edge cases with random values in the other positions; then
   * {@code count} rows of independent random values.
   */
  public static Stream<Arguments> tuples(int count, Gen<?>... gens) {
    Random random = new Random(SEED);
    List<Arguments> out = new ArrayList<>();
    for (int i = 0; i < gens.length; i++) {
      for (Object edge : gens[i].edges()) {
        Object[] row = drawRow(random, gens);
        row[i] = edge;
        out.add(named(row));
      }
    }
    for (int n = 0; n < count; n++) {
      out.add(named(drawRow(random, gens)));
    }
    return out.stream();
  }

  private static Object[] drawRow(Random random, Gen<?>[] gens) {
    Object[] row = new Object[gens.length];
    for (int i = 0; i < gens.length; i++) {
      row[i] = gens[i].next(random);
    }
    return row;
  }

  private static Arguments named(Object[] row) {
    Object[] named = new Object[row.length];
    for (int i = 0; i < row.length; i++) {
      named[i] = Named.of(show(row[i]), row[i]);
    }
    return Arguments.of(named);
  }

  /**
   * A value as shown in test names and messages: strings and chars quoted, with quotes,
   * backslashes and every char outside printable ASCII written as {@code \\uXXXX}, so NUL,
   * controls, lone surrogates and look-alikes are visible and the name stays plain ASCII.
   */
  public static String show(Object value) {
    if (value instanceof CharSequence s) {
      return "\"" + escape(s) + "\"";
    }
    if (value instanceof Character c) {
      return "'" + escape(String.valueOf(c)) + "'";
    }
    if (value instanceof List<?> list) {
      return list.stream().map(Generated::show).collect(Collectors.joining(", ", "[", "]"));
    }
    return String.valueOf(value);
  }

  private static String escape(CharSequence s) {
    StringBuilder out = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'' || c == '\\') {
        out.append('\\').append(c);
      } else if (c >= ' ' && c <= '~') {
        out.append(c);
      } else {
        out.append(String.format("\\u%04X", (int) c));
      }
    }
    return out.toString();
  }

  static long readSeed(String property) {
    if (property == null || property.isBlank()) {
      return DEFAULT_SEED;
    }
    if (property.trim().equalsIgnoreCase("random")) {
      return new Random().nextLong();
    }
    try {
      return Long.decode(property.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          SEED_PROPERTY + " must be a number or 'random', was '" + property + "'", e);
    }
  }
}
