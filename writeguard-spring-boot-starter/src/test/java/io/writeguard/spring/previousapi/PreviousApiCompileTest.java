package io.writeguard.spring.previousapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Upgrades keep working, or the CHANGELOG says what broke: code written against the earlier
 * public API (src/test/resources/previous-api, with the imports the README and docs showed) is
 * compiled against this build. Compiled as it is, every error must be on a line that uses a
 * type the CHANGELOG lists under "Breaking changes"; compiled with the moves listed there
 * applied, it must have no error at all. An unlisted break fails one or the other.
 */
class PreviousApiCompileTest {
  /** A listed move: "- `io.writeguard.a.Type` moved to `io.writeguard.b.Type`". */
  private static final Pattern MOVE =
      Pattern.compile("`(io\\.writeguard\\.[\\w.]+)` moved to `(io\\.writeguard\\.[\\w.]+)`");

  @Test
  void previousCodeBreaksOnlyWhereTheChangelogSaysAndCompilesAfterTheListedMoves()
      throws IOException {
    Map<String, String> moves = listedMoves();
    assertThat(moves).as("the moves listed under Breaking changes").isNotEmpty();
    Path dir = Path.of("src/test/resources/previous-api");
    List<Path> sources;
    try (var files = Files.list(dir)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    assertThat(sources).isNotEmpty();
    for (Path source : sources) {
      String code = Files.readString(source);
      List<String> unlisted = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> error : compile(source, code)) {
        String line = code.lines().skip(error.getLineNumber() - 1).findFirst().orElse("");
        boolean listed = moves.keySet().stream()
            .anyMatch(old -> line.contains(simpleName(old)));
        if (!listed) {
          unlisted.add(source.getFileName() + ":" + error.getLineNumber() + ": "
              + error.getMessage(null));
        }
      }
      assertThat(unlisted).as("errors not explained by a listed break").isEmpty();

      String migrated = code;
      for (Map.Entry<String, String> move : moves.entrySet()) {
        migrated = migrated.replace(move.getKey(), move.getValue());
      }
      assertThat(compile(source, migrated)).as(source.getFileName()
          + " with the CHANGELOG's moves applied").extracting(d -> d.getLineNumber() + ": "
          + d.getMessage(null)).isEmpty();
    }
  }

  /** The test can fail: a type that is gone and not listed is reported. */
  @Test
  void anUnlistedBreakIsReported() {
    String code = "import io.writeguard.update.NoSuchUpdater;\nclass X { NoSuchUpdater u; }\n";
    assertThat(compile(Path.of("X.java"), code)).isNotEmpty();
    assertThat(listedMoves()).doesNotContainKey("io.writeguard.update.NoSuchUpdater");
  }

  private static Map<String, String> listedMoves() {
    String changelog;
    try {
      changelog = Files.readString(Path.of("../CHANGELOG.md"));
    } catch (IOException e) {
      throw new IllegalStateException("CHANGELOG.md not found beside the module", e);
    }
    Map<String, String> moves = new LinkedHashMap<>();
    boolean breaking = false;
    for (String line : changelog.split("\n")) {
      if (line.startsWith("#")) {
        breaking = line.startsWith("### Breaking changes");
      } else if (breaking) {
        Matcher m = MOVE.matcher(line);
        while (m.find()) {
          moves.put(m.group(1), m.group(2));
        }
      }
    }
    return moves;
  }

  private static String simpleName(String qualified) {
    return qualified.substring(qualified.lastIndexOf('.') + 1);
  }

  private static List<Diagnostic<? extends JavaFileObject>> compile(Path name, String code) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null,
        StandardCharsets.UTF_8)) {
      Path out = Files.createTempDirectory("previous-api");
      JavaFileObject source = new SimpleJavaFileObject(
          URI.create("string:///" + name.getFileName()), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return code;
        }
      };
      List<String> options = List.of("-proc:none", "-d", out.toString(),
          "-classpath", System.getProperty("java.class.path"));
      javac.getTask(null, files, diagnostics, options, null, List.of(source)).call();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
  }
}
