package io.writeguard.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Reads the Markdown the project ships: README.md and docs/*.md. */
final class DocBlocks {
  private static final Pattern JAVA_FENCE = Pattern.compile("^```java(?:\\s+(.*))?$");

  private DocBlocks() {}

  /** The repository root: the surefire property, else the parent of the working directory. */
  static Path root() {
    String configured = System.getProperty("writeguard.docs.root");
    Path root = configured != null ? Path.of(configured) : Path.of("..");
    return root.toAbsolutePath().normalize();
  }

  /** README.md, then docs/*.md in name order. */
  static List<Path> markdownFiles(Path root) {
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  static List<DocBlock> javaBlocks(Path root) {
    List<DocBlock> blocks = new ArrayList<>();
    for (Path file : markdownFiles(root)) {
      blocks.addAll(javaBlocks(root.relativize(file).toString(), read(file)));
    }
    return blocks;
  }

  static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<DocBlock> javaBlocks(String name, List<String> lines) {
    List<DocBlock> blocks = new ArrayList<>();
    for (int n = 0; n < lines.size(); n++) {
      Matcher open = JAVA_FENCE.matcher(lines.get(n).strip());
      if (!lines.get(n).startsWith("```") || !open.matches()) {
        continue;
      }
      List<String> attributes = open.group(1) == null || open.group(1).isBlank()
          ? List.of() : Arrays.asList(open.group(1).strip().split("\\s+"));
      int start = n + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).startsWith("```")) {
        end++;
      }
      if (end == lines.size()) {
        throw new IllegalArgumentException(name + ":" + (n + 1) + ": java block never closed");
      }
      blocks.add(new DocBlock(name, start + 1, lines.subList(start, end), attributes));
      n = end;
    }
    return blocks;
  }
}
