package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.auth0.jwt.JWT;
import com.auth0.jwt.algorithms.Algorithm;
import io.writeguard.app.cli.UsageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JwtAuthTest {
  private static final byte[] SECRET = ServeFixture.SECRET;
  private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
  private final JwtAuth auth = new JwtAuth(JwtSecret.of(SECRET, "test"), Clock.fixed(NOW, ZoneOffset.UTC));

  @TempDir Path tmp;

  @Test
  void issuedTokenNamesItsUser() {
    assertThat(auth.authenticate("Bearer " + auth.issue("alice", Duration.ofMinutes(5))))
        .isEqualTo("alice");
    assertThat(auth.authenticate("bearer " + auth.issue("bob", Duration.ofMinutes(5))))
        .as("scheme is case-insensitive").isEqualTo("bob");
  }

  @Test
  void missingOrNonBearerHeaderIs401() {
    assertRejected(null, "missing Authorization");
    assertRejected("", "missing Authorization");
    assertRejected("Basic YWxpY2U6eA==", "not 'Bearer");
  }

  @Test
  void malformedTokenIs401() {
    assertRejected("Bearer ", "malformed");
    assertRejected("Bearer abc", "malformed");
    assertRejected("Bearer a.b.c", "malformed");
  }

  @Test
  void tokenSignedWithAnotherSecretIs401() {
    String forged = JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .withExpiresAt(NOW.plusSeconds(60))
        .sign(Algorithm.HMAC256("another-secret-another-secret-another-secret"));
    assertRejected("Bearer " + forged, "signature");
  }

  @Test
  void tamperedPayloadIs401() {
    String[] parts = auth.issue("alice", Duration.ofMinutes(5)).split("\\.");
    String payload = b64("{\"iss\":\"writeguard\",\"sub\":\"mallory\",\"exp\":"
        + NOW.plusSeconds(60).getEpochSecond() + "}");
    assertRejected("Bearer " + parts[0] + "." + payload + "." + parts[2], "signature");
  }

  @Test
  void expiredTokenIs401() {
    JwtAuth past = new JwtAuth(JwtSecret.of(SECRET, "test"),
        Clock.fixed(NOW.minus(Duration.ofHours(2)), ZoneOffset.UTC));
    assertRejected("Bearer " + past.issue("alice", Duration.ofHours(1)), "expired");
  }

  @Test
  void algNoneIs401() {
    String header = b64("{\"alg\":\"none\",\"typ\":\"JWT\"}");
    String payload = b64("{\"iss\":\"writeguard\",\"sub\":\"alice\",\"exp\":"
        + NOW.plusSeconds(60).getEpochSecond() + "}");
    assertRejected("Bearer " + header + "." + payload + ".", "HS256");
  }

  @Test
  void otherHmacAlgorithmWithTheSameSecretIs401() {
    String hs512 = JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .withExpiresAt(NOW.plusSeconds(60)).sign(Algorithm.HMAC512(SECRET));
    assertRejected("Bearer " + hs512, "HS256");
  }

  @Test
  void tokenWithoutExpiryOrSubjectOrOurIssuerIs401() {
    Algorithm hs256 = Algorithm.HMAC256(SECRET);
    assertRejected("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .sign(hs256), "'exp'");
    assertRejected("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER)
        .withExpiresAt(NOW.plusSeconds(60)).sign(hs256), "'sub'");
    assertRejected("Bearer " + JWT.create().withIssuer("someone-else").withSubject("alice")
        .withExpiresAt(NOW.plusSeconds(60)).sign(hs256), "rejected");
    assertRejected("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("a\u0000b")
        .withExpiresAt(NOW.plusSeconds(60)).sign(hs256), "subject");
    assertRejected("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("x".repeat(129))
        .withExpiresAt(NOW.plusSeconds(60)).sign(hs256), "subject");
  }

  @Test
  void secretMustBeGivenAndLongEnough() throws Exception {
    assertThatThrownBy(() -> JwtSecret.load(null, Map.of()))
        .isInstanceOf(UsageException.class).hasMessageContaining("WRITEGUARD_JWT_SECRET");
    assertThatThrownBy(() -> JwtSecret.load(null, Map.of(JwtSecret.ENV, "short")))
        .isInstanceOf(UsageException.class).hasMessageContaining("at least 32 bytes")
        .hasMessageContaining("was 5 bytes");
    Path file = tmp.resolve("secret");
    Files.write(file, (new String(SECRET, StandardCharsets.UTF_8) + "\n").getBytes(StandardCharsets.UTF_8));
    JwtSecret fromFile = JwtSecret.load(file, Map.of(JwtSecret.ENV, "ignored"));
    assertThat(fromFile.bytes()).as("one trailing newline dropped").isEqualTo(SECRET);
    assertThat(fromFile.toString()).doesNotContain("test-secret");
    assertThatThrownBy(() -> JwtSecret.load(tmp.resolve("missing"), Map.of()))
        .isInstanceOf(UsageException.class).hasMessageContaining("missing");
  }

  private void assertRejected(String header, String reason) {
    assertThatThrownBy(() -> auth.authenticate(header))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(401))
        .hasMessageContaining(reason);
  }

  private static String b64(String json) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }
}
