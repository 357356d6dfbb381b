package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * Each workload option refuses a bad value before anything starts: exit code 2 and a message
 * naming the option and the value.
 */
class BenchOptionsTest {

  @ParameterizedTest
  @CsvSource({
      "--documents, many",
      "--documents, PER-CLIENT",
      "--collection-docs, 0",
      "--collection-docs, 10000001",
      "--collection-docs, ten",
      "--pad, 16MB",
      "--pad, 1GB",
      "--pad, -1KB",
      "--pad, 1 kilobyte",
  })
  void refusesBadValueWithExitCode2NamingIt(String option, String value) {
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new BenchMain());
    command.setErr(new PrintWriter(err, true));

    int code = command.execute(option, value, "--out", "target/never-written.json");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains(option).contains(value);
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "512, 512", "512B, 512", "1KB, 1024", "64kb, 65536", "1MB, 1048576",
      "15MB, 15728640"})
  void readsSizes(String text, int bytes) {
    assertThat(BenchMain.parseSize("--pad", text)).isEqualTo(bytes);
  }
}
