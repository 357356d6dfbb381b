package io.writeguard.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A generator of test values: a list of edge cases, which {@link Generated} emits first, and a
 * way to draw a random value from a seeded {@link Random}.
 *
 * <p>Deliberately plain: no shrinking and no hidden state, so a case is reproduced by its
 * value alone (shown in the test's name and failure message) or by rerunning with the same
 * seed. Numbers are drawn biased towards the ends of their range and towards zero, because
 * that is where bugs live; a uniform draw over {@code long} would almost never produce a
 * small number.
 *
 * <p>Immutable and thread-safe, provided the mapping functions are.
 *
 * @param <T> the type of the generated values
 */
public final class Gen<T> {
  /** Characters that are special somewhere in this project: path syntax, NUL, controls, odd Unicode. */
  public static final String TRICKY_CHARS = "a9Z$. \0\t\n\r\u001F\u007F\u0085\u009F\u00A0"
      + "\u2003\u2028\u3000\uFEFF\uFF0E\uFF04\uD83D\uDE00\uFFFF'\"\\";

  /** Most attempts {@link #filter} makes before it gives up. */
  private static final int FILTER_ATTEMPTS = 10_000;

  private final List<T> edges;
  private final Function<Random, T> draw;

  private Gen(List<T> edges, Function<Random, T> draw) {
    this.edges = Collections.unmodifiableList(new ArrayList<>(new LinkedHashSet<>(edges)));
    this.draw = draw;
  }

  /** A generator with no edge cases of its own; add some with {@link #withEdges}. */
  public static <T> Gen<T> of(Function<Random, T> draw) {
    return new Gen<>(List.of(), draw);
  }

  /** The edge cases, without duplicates, in the order given. */
  public List<T> edges() {
    return edges;
  }

  /** A random value; never an edge case unless the draw happens to produce one. */
  public T next(Random random) {
    return draw.apply(random);
  }

  /** The same generator with more edge cases, listed after the existing ones. */
  @SafeVarargs
  public final Gen<T> withEdges(T... more) {
    List<T> all = new ArrayList<>(edges);
    all.addAll(Arrays.asList(more));
    return new Gen<>(all, draw);
  }

  /** Applies {@code f} to every edge case and every drawn value. */
  public <R> Gen<R> map(Function<? super T, ? extends R> f) {
    List<R> mapped = new ArrayList<>();
    for (T edge : edges) {
      mapped.add(f.apply(edge));
    }
    return new Gen<>(mapped, random -> f.apply(draw.apply(random)));
  }

  /** Keeps the edge cases and draws that pass; fails loudly if passing values are too rare. */
  public Gen<T> filter(Predicate<? super T> keep) {
    List<T> kept = new ArrayList<>();
    for (T edge : edges) {
      if (keep.test(edge)) {
        kept.add(edge);
      }
    }
    return new Gen<>(kept, random -> {
      for (int i = 0; i < FILTER_ATTEMPTS; i++) {
        T value = draw.apply(random);
        if (keep.test(value)) {
          return value;
        }
      }
      throw new IllegalStateException(
          "filter rejected " + FILTER_ATTEMPTS + " draws in a row; generate valid values directly");
    });
  }

  // ---- numbers ----

  /** Ints in {@code [min, max]}; edges are both ends, their neighbours and -1, 0, 1. */
  public static Gen<Integer> ints(int min, int max) {
    return longs(min, max).map(Math::toIntExact);
  }

  /** Longs in {@code [min, max]}; edges are both ends, their neighbours and -1, 0, 1. */
  public static Gen<Long> longs(long min, long max) {
    if (min > max) {
      throw new IllegalArgumentException("min must be <= max, was " + min + " > " + max);
    }
    List<Long> edges = new ArrayList<>();
    for (long e : new long[] {min, min + 1, -1, 0, 1, max - 1, max}) {
      // min + 1 and max - 1 may overflow or leave the range: keep only values inside it
      if (e >= min && e <= max) {
        edges.add(e);
      }
    }
    return new Gen<>(edges, random -> drawLong(random, min, max));
  }

  /**
   * One in three draws is uniform over the range; the others start from an end of the range
   * or from zero and move inwards by a log-uniform distance (as likely 3 as 3 billion).
   */
  private static long drawLong(Random random, long min, long max) {
    switch (random.nextInt(4)) {
      case 0:
        return min + Math.min(smallOffset(random), max - min < 0 ? Long.MAX_VALUE : max - min);
      case 1:
        return max - Math.min(smallOffset(random), max - min < 0 ? Long.MAX_VALUE : max - min);
      case 2:
        if (min <= 0 && 0 <= max) {
          long offset = smallOffset(random);
          long value = random.nextBoolean() ? offset : -offset;
          return Math.max(min, Math.min(max, value));
        }
        return uniform(random, min, max);
      default:
        return uniform(random, min, max);
    }
  }

  /** A non-negative long whose bit length is uniform in 0..63. */
  private static long smallOffset(Random random) {
    int bits = random.nextInt(64);
    return bits == 0 ? 0 : random.nextLong() >>> (64 - bits);
  }

  private static long uniform(Random random, long min, long max) {
    if (max < Long.MAX_VALUE) {
      return random.nextLong(min, max + 1);
    }
    if (min > Long.MIN_VALUE) {
      return random.nextLong(min - 1, max) + 1;
    }
    return random.nextLong();
  }

  /** Durations in {@code [min, max]}, drawn as nanoseconds like {@link #longs}. */
  public static Gen<Duration> durations(Duration min, Duration max) {
    return longs(min.toNanos(), max.toNanos()).map(Duration::ofNanos);
  }

  // ---- characters and strings ----

  /** One of the given characters, uniformly; every one of them is an edge case. */
  public static Gen<Character> chars(String alphabet) {
    if (alphabet.isEmpty()) {
      throw new IllegalArgumentException("alphabet must not be empty");
    }
    List<Character> edges = alphabet.chars().mapToObj(c -> (char) c).toList();
    return new Gen<>(edges, random -> alphabet.charAt(random.nextInt(alphabet.length())));
  }

  /** A character in {@code [from, to]}; edges are the two ends. */
  public static Gen<Character> charRange(char from, char to) {
    if (from > to) {
      throw new IllegalArgumentException("from must be <= to, was " + from + " > " + to);
    }
    return new Gen<>(List.of(from, to), random -> (char) random.nextInt(from, to + 1));
  }

  /**
   * Any UTF-16 char, half the time one of {@link #TRICKY_CHARS} (NUL, dot, {@code $},
   * controls, lone surrogates, look-alikes), otherwise uniform over U+0000..U+FFFF.
   */
  public static Gen<Character> anyChar() {
    Gen<Character> tricky = chars(TRICKY_CHARS);
    Gen<Character> uniform = charRange('\u0000', '\uFFFF');
    return new Gen<>(tricky.edges(),
        random -> random.nextBoolean() ? tricky.next(random) : uniform.next(random));
  }

  /**
   * Strings of {@code chars} with a length uniform in {@code [minLength, maxLength]}. Edges:
   * the shortest string, one of each edge char at the shortest non-empty length, and the longest.
   */
  public static Gen<String> strings(Gen<Character> chars, int minLength, int maxLength) {
    if (minLength < 0 || minLength > maxLength) {
      throw new IllegalArgumentException(
          "need 0 <= minLength <= maxLength, was " + minLength + ", " + maxLength);
    }
    List<String> edges = new ArrayList<>();
    if (minLength == 0) {
      edges.add("");
    }
    for (char c : chars.edges()) {
      edges.add(String.valueOf(c).repeat(Math.max(1, minLength)));
    }
    if (!chars.edges().isEmpty()) {
      edges.add(String.valueOf(chars.edges().get(0)).repeat(maxLength));
    }
    return new Gen<>(edges, random -> {
      int length = random.nextInt(minLength, maxLength + 1);
      StringBuilder s = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        s.append(chars.next(random));
      }
      return s.toString();
    });
  }

  /** Arbitrary text up to {@code maxLength} chars: see {@link #anyChar()}. */
  public static Gen<String> text(int maxLength) {
    return strings(anyChar(), 0, maxLength);
  }

  /** ASCII digit strings, leading zeros included. */
  public static Gen<String> digitStrings(int minLength, int maxLength) {
    return strings(chars("0123456789"), minLength, maxLength);
  }

  // ---- combinations ----

  /** One of the given values, uniformly; each is an edge case. */
  @SafeVarargs
  public static <T> Gen<T> elements(T... values) {
    List<T> all = List.of(values);
    return new Gen<>(all, random -> all.get(random.nextInt(all.size())));
  }

  /** Draws from one of the generators, chosen uniformly; edges are all of theirs. */
  @SafeVarargs
  public static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
    List<T> edges = new ArrayList<>();
    for (Gen<? extends T> g : gens) {
      edges.addAll(g.edges());
    }
    return new Gen<>(edges, random -> gens[random.nextInt(gens.length)].next(random));
  }

  /**
   * Draws from one of the generators, chosen in proportion to its weight, e.g.
   * {@code frequency(Map.entry(9, common), Map.entry(1, rare))}; edges are all of theirs.
   */
  @SafeVarargs
  public static <T> Gen<T> frequency(Map.Entry<Integer, Gen<T>>... weighted) {
    List<T> edges = new ArrayList<>();
    int total = 0;
    for (Map.Entry<Integer, Gen<T>> w : weighted) {
      if (w.getKey() < 1) {
        throw new IllegalArgumentException("weights must be >= 1, was " + w.getKey());
      }
      total += w.getKey();
      edges.addAll(w.getValue().edges());
    }
    int sum = total;
    return new Gen<>(edges, random -> {
      int pick = random.nextInt(sum);
      for (Map.Entry<Integer, Gen<T>> w : weighted) {
        pick -= w.getKey();
        if (pick < 0) {
          return w.getValue().next(random);
        }
      }
      throw new AssertionError("unreachable: pick within the total weight");
    });
  }

  /**
   * Lists of {@code elements} with a size uniform in {@code [minSize, maxSize]}. Edges: the
   * smallest and the largest list made of the first element edge, when there is one.
   */
  public static <T> Gen<List<T>> listOf(Gen<T> elements, int minSize, int maxSize) {
    if (minSize < 0 || minSize > maxSize) {
      throw new IllegalArgumentException(
          "need 0 <= minSize <= maxSize, was " + minSize + ", " + maxSize);
    }
    List<List<T>> edges = new ArrayList<>();
    if (!elements.edges().isEmpty()) {
      T first = elements.edges().get(0);
      edges.add(Collections.nCopies(minSize, first));
      edges.add(Collections.nCopies(maxSize, first));
    }
    return new Gen<>(edges, random -> {
      int size = random.nextInt(minSize, maxSize + 1);
      List<T> list = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        list.add(elements.next(random));
      }
      return Collections.unmodifiableList(list);
    });
  }
}
