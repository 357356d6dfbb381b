package io.writeguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.Main;
import io.writeguard.bench.BenchMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command the README and docs/*.md show ({@code writeguard lab ...}, {@code ./writeguard},
 * {@code java -jar writeguard-app/target/writeguard.jar ...}, {@code writeguard-bench/run.sh ...})
 * names a subcommand and flags that exist in the command's picocli model, and every subcommand
 * is run in its short form by a named test or says why not ({@link #RUN_BY}).
 */
class DocumentedCommandsTest {
  /**
   * Which test runs each subcommand in its short form (Class#method, checked to exist), or why
   * none does. Tests tagged {@code long} run in CI's second command, {@code mvn -B -Plong test}.
   */
  static final Map<String, String> RUN_BY = Map.of(
      "lab", "LabCommandTest#aFullRunPrintsTheTableWritesTheJsonAndExitsZeroWhenOnlyNaiveLoses;"
          + " LabBalanceCommandTest#transferOnAStandaloneServerSaysWhyExitsFourAndWritesNoReport;"
          + " LabProcessesTest#twoProcessesCountEveryOperationExactlyAndRecommendFromTheRows (long);"
          + " LauncherTest#theLabsTransferScenarioExitsFourOnTheEmbeddedServer",
      "serve", "LauncherTest#theServeQuickStartAnswersAsDocsServeMdShows;"
          + " ServeProcessTest#sigtermStopsEachProcessWithExitZero (long)",
      "token", "TokenCommandTest#printsATokenServeAcceptsAsItsLastLine;"
          + " LauncherTest#theServeQuickStartAnswersAsDocsServeMdShows",
      "audit", "AuditCommandTest#auditCountsEveryKindListsIdsAndExitsOne;"
          + " AuditCommandTest#fixRepairsTheSafeKindsReportsTheRestAndExitsOneWhileProblemsRemain",
      "mongo", "MongoCommandProcessTest#sigtermFromProcessDestroyStopsItWithExitZero",
      "chaos", "ChaosCommandTest#everyFaultHoldsOnEveryGuardedStrategy (long: chaos --short);"
          + " not run: the full chaos (the same faults with longer phases, several minutes)",
      "help", "LauncherTest#theLauncherRunsTheJar (--version); not run: help, which prints usage only",
      "writeguard-bench/run.sh", "BenchOptionsTest#refusesBadValueWithExitCode2NamingIt;"
          + " not run: a run measures for a minute and a half or more and checks no claim a test"
          + " could hold (ratios from one run, docs/bench.md)");

  private static final Pattern FLAG = Pattern.compile("^\\[?(--[a-z][a-z0-9-]*)");
  private static final Pattern TEST_REF = Pattern.compile("([A-Z][A-Za-z0-9]*Test)(?:#([a-zA-Z0-9_]+))?");

  record Invocation(String where, String command, List<String> flags) {}

  @Test
  void everyDocumentedCommandAndFlagExists() {
    CommandLine writeguard = Main.commandLine();
    CommandLine bench = new CommandLine(new BenchMain());
    List<Invocation> found = invocations(writeguard.getSubcommands().keySet());
    List<String> wrong = new ArrayList<>();
    for (Invocation call : found) {
      CommandLine command = call.command().equals("writeguard-bench/run.sh") ? bench
          : writeguard.getSubcommands().get(call.command());
      for (String flag : call.flags()) {
        if (!command.getCommandSpec().optionsMap().containsKey(flag)) {
          wrong.add(call.where() + ": " + call.command() + " has no option " + flag);
        }
      }
    }
    System.out.printf("documented commands: %d invocations of %s checked against the picocli model%n",
        found.size(), found.stream().map(Invocation::command).collect(Collectors.toCollection(TreeSet::new)));
    assertThat(found).as("invocations found in the docs").hasSizeGreaterThanOrEqualTo(40);
    assertThat(found.stream().map(Invocation::command).collect(Collectors.toSet()))
        .as("subcommands the docs show").contains("lab", "serve", "audit", "mongo", "token", "chaos",
            "writeguard-bench/run.sh");
    assertThat(wrong).as("documented flags that do not exist").isEmpty();
  }

  @Test
  void aDocumentedFlagThatDoesNotExistIsFound() {
    List<Invocation> found = invocations(List.of("`writeguard lab --clients 4 --no-such-flag 1`"),
        "x.md", Set.of("lab"));
    assertThat(found).singleElement().satisfies(call -> {
      assertThat(call.command()).isEqualTo("lab");
      assertThat(call.flags()).containsExactly("--clients", "--no-such-flag");
    });
    assertThat(Main.commandLine().getSubcommands().get("lab").getCommandSpec().optionsMap())
        .containsKey("--clients").doesNotContainKey("--no-such-flag");
  }

  @Test
  void aContinuedLineAndTheLauncherFormsAreRead() {
    List<Invocation> found = invocations(List.of(
        "for p in 1 2; do", "  ./writeguard serve --port $p \\", "    --strategy optimistic &",
        "java -jar writeguard-app/target/writeguard.jar chaos --short    # the CI version",
        "writeguard-bench/run.sh --clients 64 --processes 2"), "x.md", Set.of("serve", "chaos"));
    assertThat(found).extracting(Invocation::command).containsExactly("serve", "chaos", "writeguard-bench/run.sh");
    assertThat(found.get(0).flags()).containsExactly("--port", "--strategy");
    assertThat(found.get(1).flags()).containsExactly("--short");
  }

  @Test
  void everySubcommandIsRunByATestOrSaysWhyNot() throws IOException {
    Set<String> commands = new TreeSet<>(Main.commandLine().getSubcommands().keySet());
    commands.add("writeguard-bench/run.sh");
    assertThat(RUN_BY.keySet()).as("subcommands with a line in RUN_BY").containsExactlyInAnyOrderElementsOf(commands);
    Map<String, String> tests = testSources(DocBlocks.root());
    List<String> missing = new ArrayList<>();
    for (String line : RUN_BY.values()) {
      Matcher ref = TEST_REF.matcher(line);
      while (ref.find()) {
        String source = tests.get(ref.group(1));
        if (source == null) {
          missing.add("no test class " + ref.group(1));
        } else if (ref.group(2) != null && !source.contains(" " + ref.group(2) + "(")) {
          missing.add("no method " + ref.group(1) + "#" + ref.group(2));
        }
      }
    }
    assertThat(missing).as("tests RUN_BY names that do not exist").isEmpty();
  }

  private static List<Invocation> invocations(Set<String> subcommands) {
    List<Invocation> all = new ArrayList<>();
    Path root = DocBlocks.root();
    for (Path file : DocBlocks.markdownFiles(root)) {
      all.addAll(invocations(DocBlocks.read(file), root.relativize(file).toString(), subcommands));
    }
    return all;
  }

  /**
   * {@code writeguard SUB}, {@code ./writeguard SUB}, {@code java -jar .../writeguard.jar SUB}
   * or {@code writeguard-bench/run.sh}, and the flags after it up to a backtick, a table cell,
   * a comment, a closing parenthesis, {@code ;} or {@code &}; a line ending in {@code \}
   * continues on the next.
   */
  static List<Invocation> invocations(List<String> lines, String file, Iterable<String> subcommands) {
    String names = String.join("|", subcommands);
    Pattern call = Pattern.compile("(?:java -jar \\S*writeguard\\.jar|(?<![\\w/.:-])(?:\\./)?writeguard)\\s+("
        + names + ")\\b([^`|#);&]*)|(writeguard-bench/run\\.sh)\\b([^`|#);&]*)");
    List<Invocation> found = new ArrayList<>();
    for (int n = 0; n < lines.size(); n++) {
      Matcher m = call.matcher(lines.get(n));
      while (m.find()) {
        String command = m.group(1) != null ? m.group(1) : m.group(3);
        StringBuilder args = new StringBuilder(m.group(1) != null ? m.group(2) : m.group(4));
        for (int next = n + 1; args.toString().strip().endsWith("\\") && next < lines.size(); next++) {
          args.setLength(args.toString().strip().length() - 1);
          args.append(' ').append(lines.get(next).split("[`|#);&]", 2)[0]);
        }
        List<String> flags = new ArrayList<>();
        for (String token : args.toString().trim().split("\\s+")) {
          Matcher flag = FLAG.matcher(token);
          if (flag.find()) {
            flags.add(flag.group(1));
          }
        }
        found.add(new Invocation(file + ":" + (n + 1), command, flags));
      }
    }
    return found;
  }

  /** Simple class name to source text, for every test class of every module. */
  private static Map<String, String> testSources(Path root) throws IOException {
    Map<String, String> sources = new LinkedHashMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("writeguard-")).toList()) {
        Path tests = module.resolve("src/test/java");
        if (!Files.isDirectory(tests)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(tests)) {
          files.filter(p -> p.toString().endsWith("Test.java"))
              .forEach(p -> sources.put(p.getFileName().toString().replace(".java", ""), read(p)));
        }
      }
    }
    return sources;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
