package io.writeguard.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.cli.MainClass;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void noCommandIsAUsageErrorThatPrintsTheHelpToStderr() {
    assertThat(run()).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).contains("Usage: writeguard").contains("lab").contains("serve");
  }

  @Test
  void versionIsThePomVersion() {
    String pomVersion = System.getProperty("writeguard.pomVersion");
    assertThat(pomVersion).as("surefire passes the POM version").isNotBlank();
    assertThat(run("--version")).isZero();
    assertThat(out.toString().strip()).isEqualTo("writeguard " + pomVersion);
  }

  @Test
  void everyCommandsHelpLineIsAWholeSentence() {
    // The top-level help shows each command's first description line: it must not stop mid-sentence.
    Main.commandLine().getSubcommands().forEach((name, sub) -> {
      String[] description = sub.getCommandSpec().usageMessage().description();
      assertThat(description).as("description of %s", name).isNotEmpty();
      assertThat(description[0].strip()).as("first help line of %s", name).endsWith(".");
    });
  }

  @Test
  void theMainClassNamedForChildJvmsIsThisOne() {
    // chaos starts `writeguard mongo` and `writeguard serve` by this name, not by Main.class.
    assertThat(MainClass.NAME).isEqualTo(Main.class.getName());
  }
}
