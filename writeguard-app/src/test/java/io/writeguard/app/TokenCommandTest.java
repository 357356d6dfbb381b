package io.writeguard.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.serve.JwtAuth;
import io.writeguard.app.serve.JwtSecret;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TokenCommandTest {
  private static final String SECRET = "token-command-test-secret-0123456789abcdef";
  @TempDir Path tmp;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  private Path secretFile(String secret) throws Exception {
    Path file = tmp.resolve("secret");
    Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void printsATokenServeAcceptsAsItsLastLine() throws Exception {
    Path file = secretFile(SECRET);
    assertThat(run("token", "--user", "alice", "--jwt-secret-file", file.toString())).isZero();
    String[] lines = out.toString().strip().split("\n");
    String token = lines[lines.length - 1].strip();
    JwtAuth serveSide = new JwtAuth(JwtSecret.load(file, Map.of()));
    assertThat(serveSide.authenticate("Bearer " + token)).isEqualTo("alice");
  }

  @Test
  void aTokenFromAnotherSecretIsRefusedByServe() throws Exception {
    Path file = secretFile(SECRET);
    assertThat(run("token", "--user", "alice", "--jwt-secret-file", file.toString())).isZero();
    JwtAuth other = new JwtAuth(JwtSecret.of("another-secret-another-secret-another-secret"
        .getBytes(StandardCharsets.UTF_8), "test"));
    String token = out.toString().strip();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> other.authenticate("Bearer " + token))
        .hasMessageContaining("signature");
  }

  @Test
  void badInputExitsWith2AndOneLine() throws Exception {
    assertThat(run("token", "--user", "alice", "--jwt-secret-file", secretFile("short").toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("at least 32 bytes");
    assertThat(run("token", "--user", " ", "--jwt-secret-file", secretFile(SECRET).toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--user");
    assertThat(run("token", "--user", "alice", "--ttl", "forever",
        "--jwt-secret-file", secretFile(SECRET).toString())).isEqualTo(2);
    assertThat(err.toString()).contains("--ttl");
    assertThat(run("token", "--user", "alice", "--jwt-secret-file", tmp.resolve("nope").toString()))
        .isEqualTo(2);
    assertThat(out.toString()).as("no token printed").isEmpty();
  }
}
