package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The route's path parameters against injection: a fixed table of known attacks, then seeded
 * generated inputs checked against an oracle written here from the rules (not by calling the
 * validator under test). Whatever is refused leaves the document byte for byte as it was.
 */
class ServePathParamsTest {
  private static final List<String> STRATEGIES = List.of("naive", "atomic", "optimistic",
      "local-lock", "mongo-lock", "redis-lock", "adaptive");
  private static ServeFixture serve;
  private static String id;

  @BeforeAll
  static void start() {
    serve = new ServeFixture("ServePathParams");
    id = serve.createDocument(2, 2, 3); // k0,k1 x s0,s1 x items 0..2
  }

  @AfterAll
  static void stop() {
    serve.close();
  }

  static Stream<Arguments> attacks() {
    String longKey = "k".repeat(10_000);
    return Stream.of(
        Arguments.of("%24where", "s0", "0", "key"),
        Arguments.of("$where", "s0", "0", "key"),
        Arguments.of("k0", "$where", "0", "skey"),
        Arguments.of("$", "s0", "0", "key"),
        Arguments.of("%24%5B%5D", "s0", "0", "key"), // $[] : every element
        Arguments.of("k0", "%24%5Bx%5D", "0", "skey"), // $[x] : array filter
        Arguments.of("a.b", "s0", "0", "key"),
        Arguments.of("k0.s0", "s0", "0", "key"),
        Arguments.of("k0", "s0.0", "0", "skey"),
        Arguments.of("%2E", "s0", "0", "key"),
        Arguments.of("k0", "s0", "-1", "i"),
        Arguments.of("k0", "s0", "1e3", "i"),
        Arguments.of("k0", "s0", "01", "i"),
        Arguments.of("k0", "s0", "%2B1", "i"),
        Arguments.of("k0", "s0", "0x1", "i"),
        Arguments.of("k0", "s0", "1.0", "i"),
        Arguments.of("k0", "s0", "%201", "i"),
        Arguments.of("k0", "s0", "2147483648", "i"),
        Arguments.of("k0", "s0", "%24", "i"),
        Arguments.of("k0", "s0", "%EF%BC%91", "i"), // full-width 1
        Arguments.of("%20", "s0", "0", "key"),
        Arguments.of("k0", "%09", "0", "skey"),
        Arguments.of("a%0Ab", "s0", "0", "key"),
        Arguments.of(longKey, "s0", "0", "key"),
        Arguments.of("k0", "s".repeat(257), "0", "skey"),
        Arguments.of("k0", "s0", "9".repeat(300), "i"),
        // Refused by Jetty before any route runs: no field, still 400 and JSON.
        Arguments.of("%00", "s0", "0", null),
        Arguments.of("k%000", "s0", "0", null),
        Arguments.of("k0", "s0", "0%00", null),
        Arguments.of("%FF", "s0", "0", null));
  }

  @ParameterizedTest(name = "[{index}] {3}: {0}/{1}/{2}")
  @MethodSource("attacks")
  void maliciousSegmentsAre400AndChangeNothing(String key, String skey, String i, String field) {
    for (String strategy : STRATEGIES) {
      byte[] before = serve.rawBytes(id);
      HttpResponse<String> r = serve.mark(id, key, skey, i, "mallory", strategy);
      assertThat(r.statusCode()).as("%s %s", strategy, r.body()).isEqualTo(400);
      JsonNode body = ServeFixture.json(r);
      assertThat(body.get("error").asText()).isNotBlank();
      if (field != null) {
        assertThat(body.get("field").asText()).isEqualTo(field);
      }
      assertThat(r.body()).doesNotContain("Exception", "\tat ");
      assertThat(serve.rawBytes(id)).as("document after %s", strategy).isEqualTo(before);
    }
  }

  @Test
  void aUriPastTheHeaderBufferIsRefusedByJettyAndChangesNothing() {
    byte[] before = serve.rawBytes(id);
    HttpResponse<String> r = serve.mark(id, "k".repeat(70_000), "s0", "0", "mallory", null);
    assertThat(r.statusCode()).isIn(414, 431);
    assertThat(r.body()).doesNotContain("Exception", "\tat ");
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  @Test
  void badIdsAre400AndUnknownIdsAre404() {
    byte[] before = serve.rawBytes(id);
    for (String bad : List.of("%24where", "1", "-1", "null", id.substring(1), id + "0",
        id.substring(0, 23) + "g", "%00" + id.substring(1), "%7B%22%24ne%22%3A1%7D")) {
      HttpResponse<String> r = serve.mark(bad, "k0", "s0", "0", "mallory", null);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
    }
    HttpResponse<String> r = serve.mark("0".repeat(24), "k0", "s0", "0", "mallory", null);
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  /** One generated request: segments as Java strings (the server's view after decoding). */
  record Case(String key, String skey, String i, String strategy, String user) {
    @Override
    public String toString() {
      return escape(key) + "/" + escape(skey) + "/" + escape(i) + "?" + strategy;
    }
  }

  static Stream<Case> generated() {
    SplittableRandom random = new SplittableRandom(20_260_811L);
    List<Case> cases = new ArrayList<>();
    for (int n = 0; n < 300; n++) {
      cases.add(new Case(field(random, "k", 2), field(random, "s", 2), index(random),
          STRATEGIES.get(random.nextInt(STRATEGIES.size())), "gen" + n));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("generated")
  void generatedSegmentsFollowTheRules(Case c) {
    byte[] before = serve.rawBytes(id);
    HttpResponse<String> r = serve.mark(id, encode(c.key()), encode(c.skey()), encode(c.i()),
        c.user(), c.strategy());

    String badField = !validField(c.key()) ? "key" : !validField(c.skey()) ? "skey"
        : !validIndex(c.i()) ? "i" : null;
    boolean hasNul = (c.key() + c.skey() + c.i()).indexOf('\0') >= 0;
    if (badField != null) {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      if (!hasNul) {
        assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo(badField);
      }
      assertThat(serve.rawBytes(id)).isEqualTo(before);
    } else if (exists(c)) {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(ServeApiTest.readList(serve, id, c.key(), c.skey(), Integer.parseInt(c.i())))
          .containsOnlyOnce(c.user());
    } else {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
      assertThat(ServeFixture.json(r).get("field").asText()).isEqualTo("i");
      assertThat(serve.rawBytes(id)).isEqualTo(before);
    }
  }

  // ---- the oracle: MongoDB field-name and array-index rules, restated ----

  static boolean validField(String s) {
    if (s.isEmpty() || s.length() > 256 || s.charAt(0) == '$' || s.isBlank()) {
      return false;
    }
    return s.chars().noneMatch(c -> c == '.' || c == 0 || c < 0x20 || (c >= 0x7f && c <= 0x9f));
  }

  static boolean validIndex(String s) {
    return s.matches("0|[1-9][0-9]{0,9}") && Long.parseLong(s) <= Integer.MAX_VALUE;
  }

  static boolean exists(Case c) {
    return c.key().matches("k[01]") && c.skey().matches("s[01]") && c.i().matches("[012]");
  }

  // ---- generators ----

  private static final String[] PIECES = {"a", "Z", "0", "9", "_", "-", "$", ".", " ", "\t",
      "\0", "\n", "\u007f", "\u0085", "/", "\\", "%", "?", "#", ";", "&", "=", "+", "~", "'",
      "\"", "{", "}", "[", "]", "é", "中", "\uD83D\uDE00", "\uFF0E", "\uFF04", "\u00A0"};

  /** Often an existing name, else a random mix of ordinary and dangerous characters. */
  private static String field(SplittableRandom random, String prefix, int existing) {
    int pick = random.nextInt(10);
    if (pick < 4) {
      return prefix + random.nextInt(existing + 1); // k0, k1 exist; k2 does not
    }
    if (pick == 4) {
      return "$" + prefix + random.nextInt(3);
    }
    if (pick == 5) {
      return "x".repeat(250 + random.nextInt(12)); // around the 256 limit
    }
    StringBuilder s = new StringBuilder();
    int length = random.nextInt(6);
    for (int k = 0; k < length; k++) {
      s.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return s.toString();
  }

  private static String index(SplittableRandom random) {
    switch (random.nextInt(8)) {
      case 0: case 1: case 2:
        return Integer.toString(random.nextInt(5)); // 0..2 exist, 3..4 do not
      case 3:
        return Long.toString(random.nextLong(Integer.MAX_VALUE - 10L, Integer.MAX_VALUE + 10L));
      case 4:
        return "-" + random.nextInt(3);
      case 5:
        return "0" + random.nextInt(10);
      case 6:
        return random.nextInt(10) + "e" + random.nextInt(4);
      default:
        return field(random, "", 1);
    }
  }

  /** Percent-encodes a segment as UTF-8, leaving only unreserved chars other than '.' alone. */
  static String encode(String segment) {
    StringBuilder out = new StringBuilder();
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(String.format("%02X", c));
      }
    }
    return out.toString();
  }

  private static String escape(String s) {
    StringBuilder out = new StringBuilder();
    String shown = s.length() > 20 ? s.substring(0, 20) + "...(" + s.length() + ")" : s;
    for (char ch : shown.toCharArray()) {
      out.append(ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) ? String.format("\\u%04x", (int) ch) : String.valueOf(ch));
    }
    return out.toString();
  }
}
