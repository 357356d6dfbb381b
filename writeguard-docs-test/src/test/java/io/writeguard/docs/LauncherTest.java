package io.writeguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  private record Result(int status, String stdout, String stderr) {}

  private static Result run(String... args) throws IOException, InterruptedException {
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
