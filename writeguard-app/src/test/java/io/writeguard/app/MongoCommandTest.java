package io.writeguard.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** {@code writeguard mongo} with ports it cannot use, run in this JVM through {@link Main#run}. */
class MongoCommandTest {
  private static final String NL = System.lineSeparator();

  @BeforeAll
  static void initialiseLoggingOutsideTheCapture() {
    // The test classpath has two logback-test.xml files (this module's and core's test-jar);
    // logback reports that on stdout the first time a logger is made, which must not land in
    // the captured output of the command under test.
    LoggerFactory.getILoggerFactory();
  }

  @Test
  void aNegativePortIsAUsageErrorNamingThePort() {
    Run run = run("mongo", "--port", "-1");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err)
        .isEqualTo("writeguard: --port must be between 0 and 65535, was -1" + NL);
    assertThat(run.out).isEmpty();
  }

  @Test
  void aPortAbove65535IsAUsageErrorNamingThePort() {
    Run run = run("mongo", "--port=65536");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err)
        .isEqualTo("writeguard: --port must be between 0 and 65535, was 65536" + NL);
    assertThat(run.out).isEmpty();
  }

  @Test
  void aPortInUseIsAUsageErrorNamingThePort() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Run run = run("mongo", "--port", String.valueOf(port));
      assertThat(run.status).isEqualTo(2);
      assertThat(run.err)
          .isEqualTo(
              "writeguard: cannot start embedded MongoDB on 127.0.0.1:"
                  + port
                  + ": BindException (Address already in use)"
                  + NL);
      assertThat(run.out).isEmpty();
    }
  }

  @Test
  void aDataPathThatIsAFileIsAUsageErrorNamingThePath() throws IOException {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("writeguard-data", ".txt");
    try {
      Run run = run("mongo", "--data", file.toString());
      assertThat(run.status).isEqualTo(2);
      assertThat(run.err).isEqualTo(
          "writeguard: the data directory " + file + " is not a directory" + NL);
      assertThat(run.out).isEmpty();
    } finally {
      java.nio.file.Files.deleteIfExists(file);
    }
  }

  @Test
  void aPortThatIsNotANumberIsAUsageError() {
    Run run = run("mongo", "--port", "abc");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err).contains("'abc' is not an int");
  }

  private static Run run(String... args) {
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int status = Main.run(args);
      return new Run(
          status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
  }

  private static final class Run {
    final int status;
    final String out;
    final String err;

    Run(int status, String out, String err) {
      this.status = status;
      this.out = out;
      this.err = err;
    }
  }
}
