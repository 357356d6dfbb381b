package com.example.bank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.embedded.EmbeddedRedis;
import io.writeguard.spring.WriteGuardUpdaters;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The application as a user runs it: on the embedded MongoDB and Redis, over HTTP, with no
 * WriteGuard configuration of its own (only the client timeouts the docs tell to set).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(BankApplicationTest.CompetingWriteEndpoint.class)
class BankApplicationTest {
  static EmbeddedMongo mongo = EmbeddedMongo.start();
  static final EmbeddedRedis redis = EmbeddedRedis.start();
  static final int mongoPort = mongo.port();

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("spring.mongodb.uri", () -> "mongodb://127.0.0.1:" + mongoPort
        + "/bank?serverSelectionTimeoutMS=500&connectTimeoutMS=500&socketTimeoutMS=5000");
    registry.add("spring.data.redis.port", redis::port);
  }

  @AfterAll
  static void stopServers() {
    mongo.close();
    redis.close();
  }

  @Value("${local.server.port}") int port;
  @Autowired AccountService accounts;
  @Autowired ReactiveAccountService reactiveAccounts;
  @Autowired WriteGuardUpdaters updaters;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void healthIsUpWithMongoRedisAndWriteGuard() throws Exception {
    // as a readiness probe asks: again until UP (the first Redis connection of a cold JVM may
    // take longer than writeguard.health.timeout), every answer within that timeout, generously
    HttpResponse<String> health = get("/actuator/health");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (health.statusCode() != 200 && System.nanoTime() < until) {
      Thread.sleep(200);
      long start = System.nanoTime();
      health = get("/actuator/health");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    JsonNode components = JsonMapper.shared().readTree(health.body()).path("components");
    assertThat(components.at("/mongo/status").asString()).isEqualTo("UP"); // Boot's own, "hello"
    assertThat(components.at("/redis/status").asString()).isEqualTo("UP");
    assertThat(components.at("/writeGuard/status").asString()).isEqualTo("UP");
    assertThat(components.at("/writeGuard/details/mongo").asString()).startsWith("UP");
    assertThat(components.at("/writeGuard/details/redis").asString()).startsWith("UP");
  }

  @Test
  void concurrentHttpDepositsAreAllCounted() throws Exception {
    String id = open();
    int threads = 8;
    int each = 25;

    List<Integer> statuses = concurrently(threads, each, () -> post("/accounts/" + id + "/deposit?amount=1").statusCode());

    assertThat(statuses).hasSize(threads * each).containsOnly(200);
    // callers of one process may share a write (group commit): the balance counts, not the version
    assertThat(accounts.find(id).getBalance()).isEqualTo(threads * each);
  }

  @Test
  void lockedWithdrawalsAndOptimisticDepositsOfOneAccountLoseNothing() throws Exception {
    String id = open();
    accounts.deposit(id, 30);
    AtomicInteger paid = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> calls = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      calls.add(pool.submit(() -> {
        for (int i = 0; i < 15; i++) {
          try {
            accounts.withdraw(id, 1); // updaters.lockedEntities(Account.class)
            paid.incrementAndGet();
          } catch (InsufficientFundsException e) {
            refused.incrementAndGet();
          }
        }
        return null;
      }));
      calls.add(pool.submit(() -> {
        for (int i = 0; i < 5; i++) {
          accounts.deposit(id, 1); // updaters.entities(Account.class)
        }
        return null;
      }));
    }
    for (Future<?> call : calls) {
      call.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(paid.get() + refused.get()).isEqualTo(60);
    assertThat(paid.get()).isBetween(30, 50);
    assertThat(accounts.find(id).getBalance()).isEqualTo(30 + 20 - paid.get());
  }

  /** The reactive beans, from Reactor's non-blocking threads: optimistic and locked, exact. */
  @Test
  void reactiveDepositsAndLockedWithdrawalsFromParallelThreadsLoseNothing() throws Exception {
    String id = open();
    accounts.deposit(id, 20);
    AtomicInteger paid = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();

    List<Account> done = Flux.range(0, 60)
        .flatMap(i -> Mono.defer(() -> i % 2 == 0
            ? reactiveAccounts.deposit(id, 1)
            : reactiveAccounts.withdraw(id, 2)
                .doOnNext(a -> paid.incrementAndGet())
                .onErrorResume(InsufficientFundsException.class, e -> {
                  refused.incrementAndGet();
                  return Mono.empty();
                }))
            .subscribeOn(Schedulers.parallel()))
        .collectList()
        .block(Duration.ofSeconds(60));

    assertThat(paid.get() + refused.get()).isEqualTo(30);
    assertThat(done).hasSize(30 + paid.get());
    assertThat(accounts.find(id).getBalance()).isEqualTo(20 + 30 - 2L * paid.get());
  }

  @Test
  void theRedisLockServesLockedEntitiesByName() throws Exception {
    String id = open();
    List<Long> results = concurrently(4, 10,
        () -> updaters.lockedEntities(Account.class, "redis").update(id, account -> {
          account.setBalance(account.getBalance() + 1);
          return account;
        }).getBalance());

    assertThat(results).hasSize(40);
    assertThat(accounts.find(id).getBalance()).isEqualTo(40);
  }

  @Test
  void aConflictThatNeverEndsIsOptimisticLockingFailureAnd409() throws Exception {
    String id = open();

    HttpResponse<String> response = post("/test/deposit-against-a-competing-writer/" + id);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(409);
    assertThat(accounts.find(id).getBalance()).isZero(); // nothing written
    assertThatThrownBy(() -> competingDeposit(id)).isInstanceOf(OptimisticLockingFailureException.class);
  }

  @Test
  void anOutageIs503WithRetryAfterAndHealthDownThenBothRecover() throws Exception {
    String id = open();
    accounts.deposit(id, 5);
    mongo.close();
    try {
      long start = System.nanoTime();
      HttpResponse<String> deposit = post("/accounts/" + id + "/deposit?amount=1");
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(503);
      assertThat(deposit.headers().firstValue("Retry-After")).hasValue("1");
      // writeguard.updater.deadline (5 s) and one server selection (0.5 s), generously
      assertThat(took).isLessThan(Duration.ofSeconds(15));

      HttpResponse<String> health = get("/actuator/health");
      assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
      JsonNode writeGuard = JsonMapper.shared().readTree(health.body()).at("/components/writeGuard");
      assertThat(writeGuard.path("status").asString()).isEqualTo("DOWN");
      assertThat(writeGuard.at("/details/mongo").asString()).startsWith("DOWN");
      assertThat(writeGuard.at("/details/redis").asString()).startsWith("UP");
    } finally {
      mongo = EmbeddedMongo.start(mongoPort);
    }
    // a fresh, empty database on the same address: the application reconnects by itself
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (get("/actuator/health").statusCode() != 200 && System.nanoTime() < until) {
      Thread.sleep(100);
    }
    String again = open();
    assertThat(post("/accounts/" + again + "/deposit?amount=1").statusCode()).isEqualTo(200);
    assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
  }

  private void competingDeposit(String id) {
    updaters.entities(Account.class).update(id, account -> {
      // another writer gets in between this read and this write, every attempt
      template.getCollection("accounts").updateOne(Filters.eq("_id", id), Updates.inc("version", 1L));
      account.setBalance(account.getBalance() + 1);
      return account;
    });
  }

  @Autowired MongoTemplate template;

  /** Test only: a deposit whose every attempt loses to a competing write, answered over HTTP. */
  @RestController
  static class CompetingWriteEndpoint {
    @Autowired WriteGuardUpdaters updaters;
    @Autowired MongoTemplate template;

    @PostMapping("/test/deposit-against-a-competing-writer/{id}")
    String deposit(@PathVariable String id) {
      return Long.toString(updaters.entities(Account.class).update(id, account -> {
        template.getCollection("accounts").updateOne(Filters.eq("_id", id), Updates.inc("version", 1L));
        account.setBalance(account.getBalance() + 1);
        return account;
      }).getBalance());
    }
  }

  private String open() throws Exception {
    String id = UUID.randomUUID().toString();
    assertThat(post("/accounts/" + id).statusCode()).isEqualTo(201);
    return id;
  }

  private <T> List<T> concurrently(int threads, int each, Callable<T> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<T>>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(pool.submit(() -> {
          List<T> results = new ArrayList<>();
          for (int i = 0; i < each; i++) {
            results.add(call.call());
          }
          return results;
        }));
      }
      List<T> all = new ArrayList<>();
      for (Future<List<T>> worker : workers) {
        all.addAll(worker.get(60, TimeUnit.SECONDS));
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
