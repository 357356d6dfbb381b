package com.example.plain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** Without Boot, writeguard-dependencies gives the versions of the docs' last column, and they run. */
class PlainApplicationTest {
  private static final Pattern ROW =
      Pattern.compile("^\\| [^|]+ \\| `([\\w.-]+):([\\w.-]+)` \\| ([^ |]+) \\| ([^ |]+) \\|$");

  @Test
  void everyLibraryOfTheDocsTableResolvesToTheVersionWithoutBoot() throws Exception {
    Map<String, String> documented = new LinkedHashMap<>();
    boolean inVersions = false;
    for (String line : Files.readAllLines(Path.of(System.getProperty("plain.docsFile")))) {
      if (line.startsWith("## ")) {
        inVersions = line.startsWith("## Versions");
      }
      Matcher row = ROW.matcher(line);
      if (inVersions && row.matches()) {
        documented.put(row.group(1) + ":" + row.group(2), row.group(4));
      }
    }
    assertTrue(documented.size() >= 4, "rows of the docs' versions table: " + documented);

    Map<String, String> resolved = new LinkedHashMap<>();
    documented.keySet().forEach(artifact -> resolved.put(artifact, resolvedVersion(artifact)));
    assertEquals(documented, resolved);
  }

  @Test
  void aVersionedUpdateRunsOnThem() {
    try (EmbeddedMongo mongo = EmbeddedMongo.start();
         MongoClient client = MongoClients.create(mongo.uri())) {
      MongoCollection<Document> accounts = client.getDatabase("plain").getCollection("accounts");
      VersionedInsert.insertOne(accounts, VersionPolicy.defaults(),
          new Document("_id", "a1").append("balance", 0L));
      VersionedUpdater updater = VersionedUpdater.builder(accounts).build();

      updater.update("a1", current -> Mutation.update(Updates.set("balance", current.getLong("balance") + 7)));

      Document stored = accounts.find().first();
      assertEquals(7L, stored.getLong("balance"));
      assertEquals(1L, stored.getLong("version"));
    }
  }

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
    assertEquals(1, versions.size(), coordinates + " on the class path: " + versions);
    return versions.get(0);
  }
}
