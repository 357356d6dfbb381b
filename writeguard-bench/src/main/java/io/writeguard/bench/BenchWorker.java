package io.writeguard.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.types.ObjectId;

/**
 * A child JVM of a {@code --processes} run: reads one round request per line on stdin, runs its
 * clients, answers one {@link RoundPart} per line on stdout (logs go to stderr), and exits at
 * the end of its input. Started by {@link ChildProcessGroup}; not meant to be run by hand.
 *
 * <p>Arguments: mongoUri collection redisUri|- process processes countCommands.
 */
public final class BenchWorker {
  private BenchWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException(
          "usage: BenchWorker mongoUri collection redisUri|- process processes countCommands");
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err); // nothing but replies on stdout
    ObjectMapper json = new ObjectMapper();
    String redis = "-".equals(args[2]) ? null : args[2];
    try (Backends backends = Backends.connect(args[0], args[1], redis,
            Boolean.parseBoolean(args[5]));
        InProcessGroup group = new InProcessGroup(backends, Integer.parseInt(args[3]),
            Integer.parseInt(args[4]))) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        Map<String, Object> request = json.readValue(line, new TypeReference<>() {});
        try {
          RoundPart part = group.start((String) request.get("contender"),
              ((List<?>) request.get("docs")).stream()
                  .map(d -> new ObjectId((String) d)).toList(),
              ((Number) request.get("clients")).intValue(),
              Duration.ofMillis(((Number) request.get("duration_ms")).longValue())).join();
          out.println(json.writeValueAsString(part.toJson()));
        } catch (RuntimeException e) {
          out.println(json.writeValueAsString(Map.of("failure", String.valueOf(e))));
        }
      }
    }
    System.exit(0); // client libraries may leave non-daemon threads behind
  }
}
