package io.writeguard.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.bson.Document;

/**
 * Many users clicking items of one document through real HTTP clients, spread over one or more
 * servers. A mark counts as acknowledged only on 200; a 409 or 503 (which promise that nothing
 * was written) is retried after a short pause, as a client honouring {@code Retry-After}
 * would, up to a bound. Each user clicks each of its items twice, so repeated clicks are in
 * the mix. Used by one test thread.
 */
final class MarkHammer {
  /** Item {@code infos[key][skey][i]}. */
  record Item(String key, String skey, int i) {}

  /** One user's click on one item. */
  record Click(String user, Item item) {}

  final Set<Click> acknowledged = ConcurrentHashMap.newKeySet();
  final AtomicInteger refusals = new AtomicInteger(); // 409 and 503 answers, each retried
  final AtomicInteger unexpected = new AtomicInteger();
  final List<String> unexpectedBodies = Collections.synchronizedList(new ArrayList<>());

  private final List<String> servers;
  private final Function<String, String> tokens;
  private final HttpClient http;

  MarkHammer(List<String> servers, Function<String, String> tokens) {
    this.servers = servers;
    this.tokens = tokens;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** Clicks of {@code users} users, each on {@code perUser} distinct items, twice, shuffled. */
  static List<Click> clicks(long seed, int users, int perUser, List<Item> items) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Click> clicks = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      List<Item> shuffled = new ArrayList<>(items);
      Collections.shuffle(shuffled, new java.util.Random(random.nextLong()));
      for (Item item : shuffled.subList(0, perUser)) {
        clicks.add(new Click("user" + u, item));
        clicks.add(new Click("user" + u, item));
      }
    }
    Collections.shuffle(clicks, new java.util.Random(random.nextLong()));
    return clicks;
  }

  /** Sends every click with {@code clients} concurrent clients; returns when all are answered. */
  void run(String docId, String strategy, List<Click> clicks, int clients) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    AtomicInteger next = new AtomicInteger();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        done.add(pool.submit(() -> {
          for (int n; (n = next.getAndIncrement()) < clicks.size(); ) {
            send(docId, strategy, clicks.get(n), n);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void send(String docId, String strategy, Click click, int n) throws Exception {
    String path = "/docs/" + docId + "/infos/" + click.item().key() + "/" + click.item().skey()
        + "/" + click.item().i() + "/read?strategy=" + strategy;
    for (int attempt = 0; attempt < 50; attempt++) {
      String server = servers.get((n + attempt) % servers.size());
      HttpRequest request = HttpRequest.newBuilder(URI.create(server + path))
          .header("Authorization", "Bearer " + tokens.apply(click.user()))
          .timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.noBody()).build();
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        acknowledged.add(click);
        return;
      }
      if (r.statusCode() == 409 || r.statusCode() == 503) {
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        refusals.incrementAndGet();
        Thread.sleep(5 + attempt * 5L);
        continue;
      }
      unexpected.incrementAndGet();
      unexpectedBodies.add(r.statusCode() + " " + r.body());
      return;
    }
  }

  /**
   * Marks acknowledged but missing from {@code doc}; fails on a duplicate or on a user that no
   * acknowledged click put there.
   */
  @SuppressWarnings("unchecked")
  int lostMarks(Document doc, List<Item> items) {
    Map<Item, List<Object>> stored = new HashMap<>();
    for (Item item : items) {
      List<Document> list = (List<Document>) doc.get("infos", Document.class)
          .get(item.key(), Document.class).get(item.skey());
      stored.put(item, (List<Object>) list.get(item.i()).get("read"));
    }
    int lost = 0;
    for (Item item : items) {
      List<Object> read = stored.get(item);
      assertThat(read).as("no user twice in %s", item).doesNotHaveDuplicates();
      for (Object user : read) {
        assertThat(acknowledged).as("%s in %s was acknowledged", user, item)
            .contains(new Click((String) user, item));
      }
    }
    for (Click click : acknowledged) {
      if (!stored.get(click.item()).contains(click.user())) {
        lost++;
      }
    }
    return lost;
  }

  static List<Item> items(int keys, int skeys, int perList) {
    List<Item> items = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      for (int s = 0; s < skeys; s++) {
        for (int i = 0; i < perList; i++) {
          items.add(new Item("k" + k, "s" + s, i));
        }
      }
    }
    return items;
  }
}
