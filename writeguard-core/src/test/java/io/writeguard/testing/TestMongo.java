package io.writeguard.testing;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.writeguard.embedded.EmbeddedMongo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The MongoDB that integration tests run against: the server named by {@code MONGODB_URI}
 * when it is set, otherwise one embedded server started once per test JVM. Each call to
 * {@link #freshDatabase(String)} returns a database no other test uses.
 *
 * <p>The shared client bounds every wait ({@link #TIMEOUT} for connecting, each reply and a
 * pooled connection), so a stalled server fails a test instead of hanging it; the bound is
 * generous because the tests run on a loaded machine.
 */
public final class TestMongo {
  /** The bound of every wait of the shared client. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static final AtomicInteger counter = new AtomicInteger();
  private static volatile MongoClient client;
  private static volatile boolean embedded;

  private TestMongo() {}

  /** The shared client; starts the embedded server on first use. */
  public static MongoClient client() {
    MongoClient c = client;
    if (c == null) {
      synchronized (TestMongo.class) {
        if (client == null) {
          client = MongoClients.create(settings(uri()));
        }
        c = client;
      }
    }
    return c;
  }

  /** Settings for a client of {@code uri} with every wait bounded by {@link #TIMEOUT}. */
  public static MongoClientSettings settings(String uri) {
    int millis = (int) TIMEOUT.toMillis();
    return MongoClientSettings.builder()
        .applyConnectionString(new ConnectionString(uri))
        .applyToSocketSettings(s -> s.connectTimeout(millis, TimeUnit.MILLISECONDS)
            .readTimeout(millis, TimeUnit.MILLISECONDS))
        .applyToConnectionPoolSettings(p -> p.maxWaitTime(millis, TimeUnit.MILLISECONDS))
        .build();
  }

  /**
   * A new client of the server under test, bounded like the shared one, with whatever
   * {@code customizer} adds to its settings (e.g. a command listener). The caller closes it.
   */
  public static MongoClient newClient(Consumer<MongoClientSettings.Builder> customizer) {
    MongoClientSettings.Builder builder = MongoClientSettings.builder(settings(uri()));
    customizer.accept(builder);
    return MongoClients.create(builder.build());
  }

  /** The connection string of the server under test. */
  public static synchronized String uri() {
    String external = System.getenv("MONGODB_URI");
    if (external != null && !external.isBlank()) {
      return external;
    }
    if (Holder.server == null) {
      Holder.server = EmbeddedMongo.start();
      embedded = true;
      Runtime.getRuntime().addShutdownHook(new Thread(Holder.server::close));
    }
    return Holder.server.uri();
  }

  /** True when the tests run on the embedded server (no transactions, no TTL, ...). */
  public static boolean isEmbedded() {
    uri();
    return embedded;
  }

  /** A database with a name unique to this JVM run, e.g. {@code wg_LockTest_3}. */
  public static MongoDatabase freshDatabase(String hint) {
    String name = "wg_" + hint.replaceAll("[^A-Za-z0-9]", "") + "_" + counter.incrementAndGet();
    if (name.length() > 60) {
      name = name.substring(0, 50) + "_" + counter.get();
    }
    return client().getDatabase(name);
  }

  private static final class Holder {
    static EmbeddedMongo server;
  }
}
