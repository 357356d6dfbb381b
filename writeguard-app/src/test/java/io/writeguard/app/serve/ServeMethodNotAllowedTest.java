package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A wrong method on a known route answers 405 with {@code Allow} and the usual JSON error body,
 * one case per route; a path that no route knows stays 404. {@code ID} stands for a stored
 * document's id. No token is sent: the method is refused before anyone is asked who they are,
 * and nothing is read or written.
 */
class ServeMethodNotAllowedTest {
  private static ServeFixture serve;
  private static String id;

  @BeforeAll
  static void start() {
    serve = new ServeFixture("ServeMethodNotAllowed");
    id = serve.createDocument(1, 1, 1);
  }

  @AfterAll
  static void stop() {
    serve.close();
  }

  @ParameterizedTest(name = "{0} {1} -> 405, Allow: {2}")
  @CsvSource(delimiter = '|', value = {
      "GET     | /docs                        | POST",
      "DELETE  | /docs                        | POST",
      "DELETE  | /docs/ID                     | GET, HEAD",
      "PUT     | /docs/ID                     | GET, HEAD",
      "PATCH   | /docs/ID                     | GET, HEAD",
      "POST    | /docs/ID                     | GET, HEAD",
      "GET     | /docs/ID/infos/k0/s0/0/read  | POST",
      "DELETE  | /docs/ID/infos/k0/s0/0/read  | POST",
      "PUT     | /docs/ID/infos/k0/s0/0/read  | POST",
      "POST    | /health                      | GET, HEAD",
      "DELETE  | /health/ready                | GET, HEAD",
      "PUT     | /health/live                 | GET, HEAD",
      "POST    | /metrics                     | GET, HEAD",
      "OPTIONS | /metrics                     | GET, HEAD",
  })
  void aWrongMethodOnAKnownRouteIs405WithAllow(String method, String path, String allow) {
    byte[] before = serve.rawBytes(id);
    HttpResponse<String> r = send(method, path.replace("ID", id));
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().allValues("Allow")).containsExactly(allow);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    assertThat(ServeFixture.json(r).get("error").asText())
        .isEqualTo("method " + method + " not allowed here; allowed: " + allow);
    assertThat(serve.rawBytes(id)).isEqualTo(before);
  }

  @ParameterizedTest(name = "{0} {1} -> 404")
  @CsvSource(delimiter = '|', value = {
      "GET    | /nope",
      "DELETE | /nope",
      "GET    | /docs/ID/infos",
      "DELETE | /docs/ID/infos/k0/s0",
      "GET    | /health/other",
  })
  void anUnknownRouteStays404(String method, String path) {
    HttpResponse<String> r = send(method, path.replace("ID", id));
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("Allow")).isEmpty();
    assertThat(ServeFixture.json(r).get("error").asText()).isNotBlank();
  }

  private static HttpResponse<String> send(String method, String path) {
    return serve.send(serve.request(path, null)
        .method(method, HttpRequest.BodyPublishers.noBody()).build());
  }
}
