package com.example.bank;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The versions this application runs on are those docs/spring-boot.md promises ("Versions"):
 * every row of its table, read from the docs, against the jars on this test's class path (the
 * class path Maven resolved for it, under Boot's parent and writeguard-bom).
 */
class ResolvedVersionsTest {
  private static final Pattern ROW =
      Pattern.compile("^\\| [^|]+ \\| `([\\w.-]+):([\\w.-]+)` \\| ([^ |]+) \\| ([^ |]+) \\|$");
  private static final Pattern BOOT_COLUMN = Pattern.compile("\\| under Boot ([\\d.]+) \\(from Boot\\) \\|");

  @Test
  void everyLibraryOfTheDocsTableResolvesToTheDocumentedBootVersion() throws IOException {
    List<String> table = versionsTable();
    Map<String, String> documented = new LinkedHashMap<>();
    for (String line : table) {
      Matcher row = ROW.matcher(line);
      if (row.matches()) {
        documented.put(row.group(1) + ":" + row.group(2), row.group(3));
      }
    }
    assertThat(documented).as("rows of the docs' versions table").containsKeys(
        "org.mongodb:mongodb-driver-sync", "io.lettuce:lettuce-core",
        "io.projectreactor:reactor-core", "io.micrometer:micrometer-core");

    Map<String, String> resolved = new LinkedHashMap<>();
    documented.keySet().forEach(artifact -> resolved.put(artifact, resolvedVersion(artifact)));
    assertThat(resolved).as("versions on the class path").isEqualTo(documented);
  }

  @Test
  void theDocsTableIsTheBootVersionThisBuildUsesAndTheStarterIsTestedOn() throws IOException {
    String header = versionsTable().stream().filter(l -> l.startsWith("| library |"))
        .findFirst().orElseThrow(() -> new AssertionError("no header row in the versions table"));
    Matcher boot = BOOT_COLUMN.matcher(header);
    assertThat(boot.find()).as("Boot column in " + header).isTrue();
    assertThat(boot.group(1)).isEqualTo(System.getProperty("bank.bootVersion"));
    // the one Boot version the starter's pom names itself (its tests run on it)
    assertThat(resolvedVersion("io.lettuce:lettuce-core"))
        .isEqualTo(System.getProperty("bank.starterLettuceVersion"));
  }

  @Test
  void writeGuardModulesComeFromTheBom() {
    String starter = resolvedVersion("io.writeguard:writeguard-spring-boot-starter");
    assertThat(resolvedVersion("io.writeguard:writeguard-core")).isEqualTo(starter);
    assertThat(resolvedVersion("io.writeguard:writeguard-redis")).isEqualTo(starter);
    assertThat(resolvedVersion("io.writeguard:writeguard-micrometer")).isEqualTo(starter);
  }

  private static List<String> versionsTable() throws IOException {
    Path docs = Path.of(System.getProperty("bank.docsFile"));
    List<String> lines = Files.readAllLines(docs);
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("## Versions")) {
        start = i;
        break;
      }
    }
    assertThat(start).as("a '## Versions' section in " + docs).isNotNegative();
    List<String> table = new ArrayList<>();
    for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      if (lines.get(i).startsWith("|")) {
        table.add(lines.get(i));
      }
    }
    return table;
  }

  /** The version of the one jar of {@code group:artifact} on the class path (repository layout). */
  private static String resolvedVersion(String coordinates) {
    String[] ga = coordinates.split(":");
    String dir = File.separator + ga[0].replace('.', File.separatorChar) + File.separator + ga[1]
        + File.separator;
    List<String> versions = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      int at = entry.indexOf(dir);
      if (at >= 0 && entry.endsWith(".jar")) {
        String rest = entry.substring(at + dir.length());
        versions.add(rest.substring(0, rest.indexOf(File.separatorChar)));
      }
    }
    assertThat(versions).as(coordinates + " on the class path").hasSize(1);
    return versions.get(0);
  }
}
