package io.writeguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/*.md compiles, and every block marked
 * {@code run} runs on the embedded servers and does what the text around it says.
 *
 * <p>The fence says what to do with a block: {@code ```java} compile it; {@code ```java run}
 * compile and run it; {@code ```java ignore} neither (it is counted, and the text should say
 * why it is not code); {@code id=NAME} names its setup and check in {@link BlockSetups};
 * {@code interface=T} compiles a list of signatures as an interface extending {@code T}. How a
 * block is wrapped into a class (imports, the names it may use) is written once, in
 * {@link BlockSource} and {@link DocsFixture}. The blocks are compiled in one {@code javac} call
 * against this module's test classpath, which has every module on it.
 */
class DocExamplesTest {
  /** Today's count, so a block that silently drops out of the checks fails the build. */
  private static final int AT_LEAST_COMPILED = 32;
  private static final int AT_LEAST_RUN = 28;

  @AfterAll
  static void stopServers() {
    DocsFixture.stopServers();
  }

  @Test
  void everyJavaBlockCompilesAndEveryRunnableOneDoesWhatTheTextSays() throws Exception {
    Path root = DocBlocks.root();
    List<DocBlock> blocks = DocBlocks.javaBlocks(root);
    checkSetupsAreUsed(blocks);
    List<DocBlock> compiled = blocks.stream().filter(b -> !b.ignored()).toList();
    Map<String, BlockSource> sources = new LinkedHashMap<>();
    for (DocBlock block : compiled) {
      BlockSource source = new BlockSource(block, BlockSetups.of(block));
      assertThat(sources.put(source.className, source)).as("two blocks at " + block.where()).isNull();
    }
    Path out = Path.of("target", "doc-blocks");
    long compileStart = System.nanoTime();
    List<String> errors = compile(sources, out);
    System.out.printf(Locale.ROOT, "compiled %d doc blocks in %d ms%n", sources.size(),
        (System.nanoTime() - compileStart) / 1_000_000);
    assertThat(errors).as("doc blocks that do not compile (the generated sources are in "
        + out.toAbsolutePath() + ")").isEmpty();

    List<String> failures = new ArrayList<>();
    int ran = 0;
    try (URLClassLoader loader = new URLClassLoader(new URL[] {out.resolve("classes").toUri().toURL()},
        getClass().getClassLoader())) {
      for (DocBlock block : compiled) {
        if (!block.runnable()) {
          continue;
        }
        ran++;
        long start = System.nanoTime();
        try {
          DocsFixture example = (DocsFixture) loader.loadClass("docs." + BlockSource.className(block))
              .getConstructor().newInstance();
          example.execute();
        } catch (Throwable t) {
          Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
          failures.add(block.where() + ": " + cause);
          cause.printStackTrace();
        }
        System.out.printf(Locale.ROOT, "ran %s in %d ms%n", block.where(), (System.nanoTime() - start) / 1_000_000);
      }
    }
    int ignored = blocks.size() - compiled.size();
    System.out.printf(Locale.ROOT, "doc blocks: %d java blocks, %d compiled, %d run, %d ignored%n",
        blocks.size(), compiled.size(), ran, ignored);
    assertThat(failures).as("runnable doc blocks that failed").isEmpty();
    assertThat(compiled.size()).as("compiled blocks").isGreaterThanOrEqualTo(AT_LEAST_COMPILED);
    assertThat(ran).as("blocks run").isGreaterThanOrEqualTo(AT_LEAST_RUN);
  }

  /** A setup whose block is gone (or lost its id) is a check that no longer runs. */
  private static void checkSetupsAreUsed(List<DocBlock> blocks) {
    Set<String> ids = blocks.stream().map(DocBlock::id).filter(java.util.Objects::nonNull)
        .collect(Collectors.toSet());
    assertThat(ids).as("ids of the doc blocks").containsAll(BlockSetups.SETUPS.keySet());
  }

  private static List<String> compile(Map<String, BlockSource> sources, Path out) throws IOException {
    Path src = out.resolve("src/docs");
    Path classes = out.resolve("classes");
    Files.createDirectories(src);
    Files.createDirectories(classes);
    List<File> files = new ArrayList<>();
    for (BlockSource s : sources.values()) {
      Path file = src.resolve(s.className + ".java");
      Files.writeString(file, s.source(), StandardCharsets.UTF_8);
      files.add(file.toFile());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
      List<String> options = List.of("-classpath", testClasspath(), "-d", classes.toString(),
          "-proc:none", "-parameters", "--release", "17", "-nowarn", "-Xmaxerrs", "1000");
      javac.getTask(null, fm, diagnostics, options, null, fm.getJavaFileObjectsFromFiles(files)).call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      String name = Path.of(d.getSource().toUri()).getFileName().toString().replace(".java", "");
      BlockSource s = sources.get(name);
      int line = s == null ? 0 : s.markdownLine(d.getLineNumber());
      String file = s == null ? name : fileOf(name, sources);
      errors.add((line == 0 ? file + " (wrapping, generated line " + d.getLineNumber() + ")"
          : file + ":" + line) + ": " + d.getMessage(Locale.ROOT));
    }
    return errors;
  }

  private static String fileOf(String className, Map<String, BlockSource> sources) {
    return sources.get(className).file;
  }

  /** Surefire's test classpath (its booter jar hides it from java.class.path). */
  private static String testClasspath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }
}
