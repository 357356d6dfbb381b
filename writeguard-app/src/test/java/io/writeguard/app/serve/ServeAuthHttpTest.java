package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.auth0.jwt.JWT;
import com.auth0.jwt.algorithms.Algorithm;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** 401 over HTTP for every kind of bad identity, and nothing written. */
class ServeAuthHttpTest {
  private ServeFixture serve;
  private String id;

  @BeforeEach
  void start() {
    serve = new ServeFixture("ServeAuth");
    id = serve.createDocument(1, 1, 1);
  }

  @AfterEach
  void stop() {
    serve.close();
  }

  @Test
  void everyBadIdentityIs401AndWritesNothing() {
    byte[] before = serve.rawBytes(id);
    Instant now = Instant.now();
    List<String> headers = new ArrayList<>();
    headers.add(null);
    headers.add("Bearer");
    headers.add("Bearer not-a-jwt");
    headers.add("Token " + serve.token("alice"));
    headers.add("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .withExpiresAt(now.plusSeconds(60)).sign(Algorithm.HMAC256("forged-forged-forged-forged-forged!")));
    headers.add("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .withExpiresAt(now.minusSeconds(60)).sign(Algorithm.HMAC256(ServeFixture.SECRET)));
    headers.add("Bearer " + JWT.create().withIssuer(JwtAuth.ISSUER).withSubject("alice")
        .withExpiresAt(now.plusSeconds(60)).sign(Algorithm.none()));

    for (String header : headers) {
      HttpRequest.Builder b = HttpRequest.newBuilder(
          URI.create(serve.server.url() + "/docs/" + id + "/infos/k0/s0/0/read"))
          .POST(HttpRequest.BodyPublishers.noBody());
      if (header != null) {
        b.header("Authorization", header);
      }
      HttpResponse<String> r = serve.send(b.build());
      assertThat(r.statusCode()).as(String.valueOf(header)).isEqualTo(401);
      assertThat(ServeFixture.json(r).get("error").asText()).isNotBlank();
      assertThat(r.body()).doesNotContain("Exception");
    }
    assertThat(serve.get("/docs/" + id, null).statusCode()).isEqualTo(401);
    assertThat(serve.post("/docs", null, "{\"infos\": {}}").statusCode()).isEqualTo(401);
    assertThat(serve.rawBytes(id)).isEqualTo(before);
    assertThat(serve.docs.countDocuments()).isEqualTo(1);
  }

  @Test
  void identityIsCheckedBeforeTheParameters() {
    HttpResponse<String> r = serve.post("/docs/not-an-id/infos/$where/s/-1/read", null, "");
    assertThat(r.statusCode()).isEqualTo(401);
  }
}
