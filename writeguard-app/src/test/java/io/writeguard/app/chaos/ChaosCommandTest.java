package io.writeguard.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code writeguard chaos --short}, end to end with real child processes: every fault on
 * every guarded strategy holds; and the same machinery reports an unguarded writer's losses
 * and exits 1, so the verdict is not one that cannot fail.
 */
class ChaosCommandTest {
  @TempDir Path tmp;

  private record Run(int status, String out, JsonNode json) {}

  private Run chaos(String... args) throws Exception {
    Path json = tmp.resolve("chaos-" + System.nanoTime() + ".json");
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of("chaos", "--short", "--json", json.toString()));
    all.addAll(List.of(args));
    int status = cl.execute(all.toArray(String[]::new));
    System.out.println(out);
    assertThat(json).as("stderr: %s", err).exists();
    return new Run(status, out.toString(), new ObjectMapper().readTree(json.toFile()));
  }

  @Test
  @Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
  @Timeout(600) // about 2.5 minutes on a quiet box; generous for a loaded 2-core machine
  void everyFaultHoldsOnEveryGuardedStrategy() throws Exception {
    Run run = chaos();
    List<String> bad = new ArrayList<>();
    int pausedAndFenced = 0;
    List<String> faults = new ArrayList<>();
    for (JsonNode row : run.json().get("rows")) {
      if (!row.get("ok").asBoolean()) {
        bad.add(row.toString());
      }
      if (!faults.contains(row.get("fault").asText())) {
        faults.add(row.get("fault").asText());
      }
      assertThat(row.get("acknowledged").asInt()).as("acknowledged in %s", row).isPositive();
      if (row.get("fault").asText().equals("pause")) {
        pausedAndFenced += row.get("staleRefused").asInt();
      }
    }
    assertThat(bad).as("rows that failed").isEmpty();
    assertThat(run.status()).isZero();
    assertThat(run.json().get("ok").asBoolean()).isTrue();
    assertThat(faults).containsExactlyElementsOf(Faults.NAMES);
    // 5 in-process faults x 2 workloads x 5 strategies, 2 serve faults x 5, and the black hole
    // through 3 serve JVMs x 5
    assertThat(run.json().get("rows")).hasSize(5 * 2 * 5 + 2 * 5 + 5);
    assertThat(pausedAndFenced)
        .as("paused lock holders whose late write the fence refused (at most 2 lock strategies"
            + " x 2 workloads)")
        .isPositive();
    assertThat(run.out()).contains("chaos: every row holds")
        .contains("longest wait, blackhole through 3 serve JVMs: atomic ")
        .contains("(bound 11000 ms = deadline 10000 ms + 1 s)");
  }

  /**
   * The checker can fail: {@code naive} under the pause fault. The paused holder read the
   * document before the pause and replaces it by {@code _id} after, erasing every mark and
   * ledger entry acknowledged meanwhile.
   */
  @Test
  @Tag("long")
  @Timeout(300)
  void anUnguardedWriterIsReportedWithLossesAndExitOne() throws Exception {
    Run run = chaos("--faults", "pause", "--strategies", "naive");
    assertThat(run.status()).isEqualTo(1);
    assertThat(run.json().get("ok").asBoolean()).isFalse();
    int lost = 0;
    for (JsonNode row : run.json().get("rows")) {
      lost += row.get("lost").asInt();
    }
    assertThat(lost).as("acknowledged operations naive lost").isPositive();
    assertThat(run.out()).contains("FAIL").contains("chaos: FAILED");
  }

  @Test
  void aLocalLockIsRefusedWithAClearMessage() {
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("chaos", "--strategies", "local-lock")).isEqualTo(2);
    assertThat(err.toString()).contains("'local-lock'").contains("one process only");
  }

  @Test
  void aDeadlineThatIsNotAPositiveDurationIsRefusedNamingIt() {
    for (String bad : new String[] {"0s", "soon", "-1s"}) {
      StringWriter err = new StringWriter();
      CommandLine cl = Main.commandLine();
      cl.setErr(new PrintWriter(err));
      assertThat(cl.execute("chaos", "--deadline", bad)).as(bad).isEqualTo(2);
      assertThat(err.toString()).contains("--deadline").contains("'" + bad + "'");
    }
  }

  @Test
  void anUnknownFaultIsRefusedNamingIt() {
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("chaos", "--faults", "meteor")).isEqualTo(2);
    assertThat(err.toString()).contains("'meteor'").contains("reset-refuse");
  }
}
