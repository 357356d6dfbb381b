package io.writeguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code ./writeguard} launcher the README gives for the docs' {@code writeguard} command
 * runs the app's jar, and the exit statuses the README promises hold through it. Needs the
 * packaged jar, which {@code mvn -B verify} builds before this module's tests.
 */
class LauncherTest {
  private static final Path ROOT = DocBlocks.root();

  @Test
  void theLauncherRunsTheJar() throws Exception {
    Result version = run("--version");
    assertThat(version.status).as(version.toString()).isZero();
    assertThat(version.stdout).startsWith("writeguard ");
    Result unknown = run("no-such-command");
    assertThat(unknown.status).as("bad input: " + unknown).isEqualTo(2);
  }

  @Test
  void theLabsTransferScenarioExitsFourOnTheEmbeddedServer() throws Exception {
    Result transfer = run("lab", "--scenario", "transfer");
    assertThat(transfer.status).as("README and docs/lab.md: 4, the scenario cannot run there; " + transfer)
        .isEqualTo(4);
    assertThat(transfer.stderr).contains("scenario transfer cannot run on this server");
  }

  /**
   * docs/serve.md's quick start, through the launcher: {@code serve --port 0} prints its URL,
   * {@code token --user alice} a token it accepts, a document is created and its item 1 marked
   * read with the answer shown ({@code "added":true,"version":1}); SIGTERM stops it with 0.
   */
  @Test
  void theServeQuickStartAnswersAsDocsServeMdShows() throws Exception {
    String secret = "docs-test-secret-of-at-least-32-bytes!";
    ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("writeguard").toString(), "serve", "--port", "0")
        .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("WRITEGUARD_JWT_SECRET", secret);
    pb.environment().remove("MONGODB_URI");
    pb.environment().remove("REDIS_URI");
    Process serve = pb.start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
      String url = out.readLine();
      assertThat(url).as("the URL, the only stdout line").startsWith("http://127.0.0.1:");
      Result token = run(Map.of("WRITEGUARD_JWT_SECRET", secret), "token", "--user", "alice");
      assertThat(token.status).as(token.toString()).isZero();
      String bearer = "Bearer " + token.stdout.strip().lines().reduce((a, b) -> b).orElseThrow();
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(
              URI.create(url + "/docs")).header("Authorization", bearer)
          .POST(HttpRequest.BodyPublishers.ofString("{\"infos\":{\"news\":{\"today\":[{},{}]}}}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String id = created.body().replaceAll(".*\"id\"\\s*:\\s*\"([0-9a-f]{24})\".*", "$1");
      HttpResponse<String> marked = http.send(HttpRequest.newBuilder(
              URI.create(url + "/docs/" + id + "/infos/news/today/1/read?strategy=optimistic"))
          .header("Authorization", bearer).POST(HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(marked.statusCode()).as(marked.body()).isEqualTo(200);
      assertThat(marked.body()).contains("\"user\":\"alice\"", "\"strategy\":\"optimistic\"",
          "\"added\":true", "\"version\":1");
      serve.destroy();  // SIGTERM
      assertThat(serve.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
      assertThat(serve.exitValue()).as("serve's exit status on SIGTERM").isZero();
    } finally {
      serve.destroyForcibly();
    }
  }

  private record Result(int status, String stdout, String stderr) {}

  private static Result run(String... args) throws IOException, InterruptedException {
    return run(Map.of(), args);
  }

  private static Result run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    Path jar = ROOT.resolve("writeguard-app/target/writeguard.jar");
    assertThat(jar).as("the app's jar (mvn -B verify packages it before this module's tests)").exists();
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("writeguard").toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile("launcher", ".out");
    Path err = Files.createTempFile("launcher", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).directory(Files.createTempDirectory("launcher").toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().remove("REBUILD");
      pb.environment().remove("MONGODB_URI");
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("./writeguard " + String.join(" ", args) + " did not end within 60 s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
