package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code writeguard serve} refuses bad start-up input with exit status 2 and one line. */
class ServeCommandTest {
  @TempDir Path tmp;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  private String secret() throws Exception {
    Path file = tmp.resolve("secret");
    Files.write(file, ServeFixture.SECRET);
    return file.toString();
  }

  @Test
  void unknownStrategyExitsWith2NamingIt() throws Exception {
    assertThat(run("serve", "--strategy", "yolo", "--jwt-secret-file", secret())).isEqualTo(2);
    assertThat(err.toString()).contains("--strategy", "yolo", "mongo-lock");
  }

  @Test
  void missingOrShortSecretExitsWith2() throws Exception {
    assertThat(run("serve", "--jwt-secret-file", tmp.resolve("none").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("--jwt-secret-file");
    Path shortSecret = tmp.resolve("short");
    Files.writeString(shortSecret, "abc", StandardCharsets.UTF_8);
    assertThat(run("serve", "--jwt-secret-file", shortSecret.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("at least 32 bytes");
  }

  @Test
  void badPortBodyLimitOrDurationExitsWith2() throws Exception {
    assertThat(run("serve", "--port", "70000", "--jwt-secret-file", secret())).isEqualTo(2);
    assertThat(err.toString()).contains("port", "70000");
    assertThat(run("serve", "--max-body", "10", "--jwt-secret-file", secret())).isEqualTo(2);
    assertThat(err.toString()).contains("maxBodyBytes", "10");
    assertThat(run("serve", "--lock-wait", "soon", "--jwt-secret-file", secret())).isEqualTo(2);
    assertThat(err.toString()).contains("--lock-wait", "soon");
    assertThat(run("serve", "--mongo-uri", "notmongo://x", "--jwt-secret-file", secret())).isEqualTo(2);
    assertThat(err.toString()).contains("notmongo://x");
    assertThat(out.toString()).as("no URL printed").isEmpty();
  }

  @Test
  void unreachableRedisExitsWith2NamingIt() throws Exception {
    assertThat(run("serve", "--redis-uri", "redis://127.0.0.1:1", "--jwt-secret-file", secret()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("cannot reach Redis", "127.0.0.1:1");
    assertThat(run("serve", "--redis-uri", "nonsense://", "--jwt-secret-file", secret()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("malformed Redis URI");
    assertThat(out.toString()).isEmpty();
  }
}
