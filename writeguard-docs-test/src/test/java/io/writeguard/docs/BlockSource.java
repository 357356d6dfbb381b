package io.writeguard.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The wrapping rules: how a doc block becomes a Java compilation unit. Written once, here.
 *
 * <ul>
 *   <li>Package {@code docs}; the imports are {@link #IMPORTS} (every WriteGuard package, the
 *       driver's client, model and BSON packages, {@code java.util}, {@code java.time}, Reactor,
 *       and {@code Filters.*}, {@code Updates.*} statically), plus the block's own from
 *       {@link BlockSetups}.
 *   <li>One class per block, extending {@link DocsFixture}: the names the prose uses
 *       ({@code accounts}, {@code id}, {@code locks}...) are its fields.
 *   <li>Type and method declarations at the block's top level (a line that starts with an
 *       annotation, a modifier, {@code class}, {@code record}, {@code interface} or
 *       {@code enum}, up to its closing brace) become members of that class; every other line
 *       is a statement of its {@code run()} method, in order. A class declared so is made
 *       {@code static} (as a top-level class, it has no outer instance), and a type without an
 *       access modifier {@code public} (so a codec can read a record's components).
 *   <li>The address {@code "redis://127.0.0.1:6379"} stands for the embedded Redis
 *       ({@link DocsFixture#redisUri()}).
 *   <li>{@code ```java interface=T}: the block is a list of method signatures, compiled as the
 *       body of an interface extending {@code T}.
 *   <li>The block's setup from {@link BlockSetups} adds members before the block ("given")
 *       and statements after it ("then", the check of what the text says).
 * </ul>
 */
final class BlockSource {
  static final List<String> IMPORTS = List.of(
      "io.writeguard.*", "io.writeguard.adaptive.*", "io.writeguard.atomic.*",
      "io.writeguard.combine.*", "io.writeguard.counter.*", "io.writeguard.deadline.*",
      "io.writeguard.idempotency.*", "io.writeguard.lock.*", "io.writeguard.monitor.*",
      "io.writeguard.path.*", "io.writeguard.tx.*", "io.writeguard.typed.*",
      "io.writeguard.update.*", "io.writeguard.version.*", "io.writeguard.redis.*",
      "io.writeguard.micrometer.*", "io.writeguard.reactor.*", "io.writeguard.embedded.*",
      "io.writeguard.app.readinfo.*", "io.writeguard.spring.*",
      "com.mongodb.client.*", "com.mongodb.client.model.*", "com.mongodb.client.result.*",
      "com.mongodb.*", "org.bson.*", "org.bson.conversions.Bson", "org.bson.types.ObjectId",
      "org.bson.codecs.pojo.annotations.BsonId", "java.util.*", "java.time.*",
      "reactor.core.publisher.Mono", "static com.mongodb.client.model.Filters.*",
      "static com.mongodb.client.model.Updates.*");

  private static final Pattern DECLARATION = Pattern.compile(
      "^\\s*(@[A-Za-z]|(public|protected|private|static|final|abstract|sealed|class|record|interface|enum)\\b).*");

  /** A class declared at the block's top level: nested, it is made static (as top-level, it has no outer instance). */
  private static final Pattern NESTED_CLASS = Pattern.compile("(^|\\s)class\\s");

  /** A type without an access modifier: public, as a top-level type of its own file would be to a library. */
  private static final Pattern PACKAGE_PRIVATE_TYPE =
      Pattern.compile("^(\\s*)((static )?(class|record|interface|enum)\\s)");
  /** The docs' example Redis address: the embedded Redis when the block runs. */
  static final String DOCS_REDIS = "\"redis://127.0.0.1:6379\"";

  final String className;
  final String file;
  final List<String> text = new ArrayList<>();
  /** For each line of {@link #text}, the Markdown line it came from (0: wrapping). */
  final List<Integer> origin = new ArrayList<>();

  BlockSource(DocBlock block, BlockSetups.Setup setup) {
    this.className = className(block);
    this.file = block.file();
    add("package docs;");
    for (String i : IMPORTS) {
      add("import " + i + ";");
    }
    for (String i : setup.imports()) {
      add("import " + i + ";");
    }
    add("@SuppressWarnings(\"all\")");
    add("public class " + className + " extends io.writeguard.docs.DocsFixture {");
    addAll(setup.given());
    List<Integer> statements = new ArrayList<>();
    List<String> lines = block.lines().stream().map(l -> l.replace(DOCS_REDIS, "redisUri()")).toList();
    block = new DocBlock(block.file(), block.firstLine(), lines, block.attributes());
    if (block.interfaceOf() != null) {
      String parent = block.interfaceOf();
      add("interface Shown" + (parent.isEmpty() ? "" : " extends " + parent) + " {");
      for (int n = 0; n < block.lines().size(); n++) {
        add(block.lines().get(n), block.firstLine() + n);
      }
      add("}");
    } else {
      splitMembers(block, statements);
    }
    add("@Override protected void run() throws Throwable {");
    for (int n : statements) {
      add(block.lines().get(n), block.firstLine() + n);
    }
    add("{");
    addAll(setup.then());
    add("}");
    add("}");
    add("}");
  }

  /** Adds the members at once; collects the statements' line indexes for run(). */
  private void splitMembers(DocBlock block, List<Integer> statements) {
    Braces braces = new Braces();
    boolean inDeclaration = false;
    boolean opened = false;
    for (int n = 0; n < block.lines().size(); n++) {
      String line = block.lines().get(n);
      if (!inDeclaration && braces.depth == 0 && DECLARATION.matcher(line).matches()) {
        inDeclaration = true;
        opened = false;
      }
      int before = braces.depth;
      braces.scan(line);
      if (inDeclaration && !opened && !line.contains("static")) {
        line = NESTED_CLASS.matcher(line).replaceFirst("$1static class ");
      }
      if (inDeclaration && !opened) {
        line = PACKAGE_PRIVATE_TYPE.matcher(line).replaceFirst("$1public $2");
      }
      if (inDeclaration) {
        add(line, block.firstLine() + n);
        opened |= braces.depth > before || braces.sawOpen;
        if (braces.depth == 0 && (opened || line.strip().endsWith(";"))) {
          inDeclaration = false;
        }
      } else {
        statements.add(n);
      }
    }
  }

  static String className(DocBlock block) {
    String file = block.file().replaceFirst("^docs/", "").replaceFirst("\\.md$", "");
    StringBuilder name = new StringBuilder();
    for (String part : file.split("[^A-Za-z0-9]+")) {
      if (!part.isEmpty()) {
        name.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1).toLowerCase());
      }
    }
    return name + "_" + (block.firstLine() - 1);
  }

  /** The Markdown line of a 1-based line of the generated source, or 0 for wrapping. */
  int markdownLine(long sourceLine) {
    return sourceLine >= 1 && sourceLine <= origin.size() ? origin.get((int) sourceLine - 1) : 0;
  }

  String source() {
    return String.join("\n", text) + "\n";
  }

  private void add(String line) {
    add(line, 0);
  }

  private void add(String line, int markdownLine) {
    text.add(line);
    origin.add(markdownLine);
  }

  private void addAll(String lines) {
    if (lines != null && !lines.isEmpty()) {
      for (String line : lines.split("\n", -1)) {
        add(line);
      }
    }
  }

  /** Counts braces outside strings, chars and comments, across lines. */
  private static final class Braces {
    int depth;
    boolean sawOpen;
    private boolean inBlockComment;

    void scan(String line) {
      sawOpen = false;
      for (int c = 0; c < line.length(); c++) {
        char ch = line.charAt(c);
        if (inBlockComment) {
          if (ch == '*' && c + 1 < line.length() && line.charAt(c + 1) == '/') {
            inBlockComment = false;
            c++;
          }
        } else if (ch == '/' && c + 1 < line.length() && line.charAt(c + 1) == '/') {
          return;
        } else if (ch == '/' && c + 1 < line.length() && line.charAt(c + 1) == '*') {
          inBlockComment = true;
          c++;
        } else if (ch == '"' || ch == '\'') {
          c = skipLiteral(line, c, ch);
        } else if (ch == '{') {
          depth++;
          sawOpen = true;
        } else if (ch == '}') {
          depth--;
        }
      }
    }

    private static int skipLiteral(String line, int start, char quote) {
      for (int c = start + 1; c < line.length(); c++) {
        if (line.charAt(c) == '\\') {
          c++;
        } else if (line.charAt(c) == quote) {
          return c;
        }
      }
      return line.length();
    }
  }
}
