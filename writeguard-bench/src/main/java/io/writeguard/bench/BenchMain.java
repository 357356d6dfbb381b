package io.writeguard.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.mongodb.client.MongoDatabase;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.embedded.EmbeddedRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar writeguard-bench.jar}: WriteGuard and its peers on one hot document, same
 * servers, same JVM (or {@code --processes} JVMs), interleaved rounds, medians, exact loss
 * accounting. Starts the embedded MongoDB and Redis unless given URIs.
 */
@Command(name = "writeguard-bench", mixinStandardHelpOptions = true,
    description = "WriteGuard and its peers, side by side, on one hot document.")
public final class BenchMain implements Callable<Integer> {
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m)");
  private static final Pattern SIZE = Pattern.compile("(\\d{1,9})(B|KB|MB)?",
      Pattern.CASE_INSENSITIVE);
  static final String ONE = "one";
  static final String PER_CLIENT = "per-client";

  @Spec
  CommandSpec spec;

  @Option(names = "--clients", defaultValue = "64", description = "concurrent clients (${DEFAULT-VALUE})")
  int clients;

  @Option(names = "--processes", defaultValue = "1",
      description = "JVMs the clients are spread over (${DEFAULT-VALUE}); more than 1 starts child JVMs")
  int processes;

  @Option(names = "--rounds", defaultValue = "3", description = "interleaved rounds (${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--duration", defaultValue = "2s", description = "length of one contender's round (${DEFAULT-VALUE})")
  String duration;

  @Option(names = "--warmup", defaultValue = "2s", description = "warm-up per contender, not counted (${DEFAULT-VALUE})")
  String warmup;

  @Option(names = "--contenders", split = ",", description = "contenders, default: all but naive and atomic-push. Known: "
      + "writeguard-versioned, spring-data-version, writeguard-redis-lock, redisson-rlock, "
      + "writeguard-mongo-lock, shedlock-mongo, seed-document-locker, reference-flat-combining,"
      + " atomic-inc, atomic-push, naive, naive-bounded, mongo-lock-by-hand,"
      + " redis-lock-by-hand, mongo-lock-by-hand-bounded, redis-lock-by-hand-bounded")
  List<String> contenders;

  @Option(names = "--documents", defaultValue = ONE, description = "hot documents: 'one' shared"
      + " by all clients, or 'per-client' (${DEFAULT-VALUE})")
  String documents;

  @Option(names = "--collection-docs", defaultValue = "1", description = "documents in the"
      + " collection, the hot ones among them; cold ones are added to make up the number"
      + " (${DEFAULT-VALUE})")
  int collectionDocs;

  @Option(names = "--pad", defaultValue = "0", description = "bytes added to each hot document"
      + " as a binary field no one changes, e.g. 1KB, 64KB, 1MB (${DEFAULT-VALUE})")
  String pad;

  @Option(names = "--count-commands", description = "count the MongoDB commands sent per call"
      + " (the cmds/call column); off by default: the driver's command events cost the calling"
      + " thread time and memory that grow with the bytes sent")
  boolean countCommands;

  @Option(names = "--mongo-uri", description = "MongoDB to use (default: an embedded one)")
  String mongoUri;

  @Option(names = "--redis-uri", description = "Redis to use (default: an embedded redis-server)")
  String redisUri;

  @Option(names = "--out", defaultValue = "writeguard-bench.json", description = "JSON result file (${DEFAULT-VALUE})")
  Path out;

  public static void main(String[] args) {
    int code = new CommandLine(new BenchMain()).execute(args);
    System.exit(code); // client libraries may leave non-daemon threads behind
  }

  @Override
  public Integer call() throws Exception {
    List<String> names = contenders == null ? Contenders.DEFAULT : contenders;
    Bench.Settings settings;
    try {
      settings = new Bench.Settings(names, clients, processes, rounds,
          parseDuration("--warmup", warmup), parseDuration("--duration", duration),
          parseDocuments(documents), checkCollectionDocs(collectionDocs),
          parseSize("--pad", pad));
    } catch (CommandLine.ParameterException e) { // reported on this command's streams, exit 2
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    EmbeddedMongo embeddedMongo = null;
    EmbeddedRedis embeddedRedis = null;
    String collection = "hot_" + System.currentTimeMillis();
    List<ClientGroup> groups = new ArrayList<>();
    try {
      String mongo = mongoUri;
      if (mongo == null) {
        embeddedMongo = EmbeddedMongo.start();
        mongo = embeddedMongo.uri();
      }
      String redis = redisUri;
      if (redis == null && Contenders.needsRedis(names)) {
        embeddedRedis = EmbeddedRedis.start();
        redis = embeddedRedis.uri();
      }
      try (Backends backends = Backends.connect(mongo, collection, redis,
          countCommands)) {
        if (processes == 1) {
          groups.add(new InProcessGroup(backends, 0, 1));
        } else {
          for (int p = 0; p < processes; p++) {
            groups.add(ChildProcessGroup.start(p, processes, mongo, collection, redis,
                countCommands));
          }
        }
        System.err.printf("writeguard-bench: %d clients in %d process(es), %d rounds of %s after"
            + " a %s warm-up, documents %s, %d in the collection, pad %d bytes, MongoDB %s,"
            + " Redis %s%n", clients, processes, rounds, duration, warmup, documents,
            collectionDocs, settings.padBytes(), embeddedMongo != null ? "embedded" : mongo,
            redis == null ? "none" : embeddedRedis != null ? "embedded redis-server" : redis);
        Bench.Result result = new Bench(settings, backends.hot(), groups, System.err).run();
        groups.forEach(ClientGroup::close);
        groups.clear();
        System.out.print(BenchReport.table(result));
        Map<String, Object> servers = new LinkedHashMap<>();
        servers.put("mongo", embeddedMongo != null ? "embedded (mongo-java-server)" : "by URI");
        servers.put("redis", redis == null ? "none"
            : embeddedRedis != null ? "embedded redis-server" : "by URI");
        servers.put("java", System.getProperty("java.version"));
        servers.put("cpus", Runtime.getRuntime().availableProcessors());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .writeValue(out.toFile(), BenchReport.json(result, servers));
        System.err.println("wrote " + out.toAbsolutePath());
        cleanUp(backends.database(), collection);
      }
      return 0;
    } finally {
      groups.forEach(ClientGroup::close);
      if (embeddedRedis != null) {
        embeddedRedis.close();
      }
      if (embeddedMongo != null) {
        embeddedMongo.close();
      }
    }
  }

  private static void cleanUp(MongoDatabase database, String collection) {
    database.getCollection(collection).drop();
    database.getCollection(WriteGuardLocked.LOCK_COLLECTION).drop();
    database.getCollection(ShedLockRetried.COLLECTION).drop();
  }

  /** {@code --documents}: true for one document per client. */
  static boolean parseDocuments(String text) {
    if (ONE.equals(text) || PER_CLIENT.equals(text)) {
      return PER_CLIENT.equals(text);
    }
    throw usage("--documents must be '" + ONE + "' or '" + PER_CLIENT + "', was '" + text + "'");
  }

  static int checkCollectionDocs(int count) {
    if (count < 1 || count > Bench.MAX_COLLECTION_DOCS) {
      throw usage("--collection-docs must be between 1 and " + Bench.MAX_COLLECTION_DOCS
          + ", was '" + count + "'");
    }
    return count;
  }

  /** A size like 0, 512B, 1KB, 64KB or 1MB (1 KB = 1024 bytes), at most 15MB. */
  static int parseSize(String option, String text) {
    Matcher m = SIZE.matcher(text.trim());
    long bytes = -1;
    if (m.matches()) {
      String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
      bytes = Long.parseLong(m.group(1)) * switch (unit) {
        case "KB" -> 1024L;
        case "MB" -> 1024L * 1024;
        default -> 1L;
      };
    }
    if (bytes < 0 || bytes > HotDocument.MAX_PAD) {
      throw usage(option + " must be a size like 0, 1KB, 64KB or 1MB, at most 15MB, was '"
          + text + "'");
    }
    return (int) bytes;
  }

  private static CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(new CommandLine(new BenchMain()), message);
  }

  static Duration parseDuration(String option, String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      throw usage(option + " must be like 500ms, 2s or 1m, was '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      default -> Duration.ofMinutes(n);
    };
  }
}
