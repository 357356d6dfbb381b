package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import io.writeguard.internal.MustFinish;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.testing.WriteHook;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Review of issue 35: exact totals with real concurrent callers while every give-back the
 * caller waits for fails, half of them after the server applied them (a reply lost), so each
 * goes on in the background and is re-sent there. No value may be created (a give-back applied
 * twice), and what is lost is exactly what the background's warnings name: once it is done,
 * the total is the seed plus the increments minus the decrements that succeeded, the amounts
 * reported stranded and the amounts of the give-backs it warned about. First written to expect
 * no loss at all: on a loaded run the drains that went on while give-backs queued in the
 * background pushed their takes' ids out of the shards' last 64 (93 of 104, 11 lost, with a
 * warning for each); see BackgroundGiveBackAfterItsTakeIsForgottenTest.
 */
class CounterBackgroundGiveBackTotalsTest {
  private static final int SHARDS = 4;
  private static final long SEED = 50;

  @Test
  void giveBacksFinishedInTheBackgroundCreateNothingAndLoseOnlyWhatTheyWarnOf() throws Exception {
    MongoCollection<Document> collection =
        TestMongo.freshDatabase("GiveBackTotals").getCollection("counters");
    String id = "totals";
    for (int i = 0; i < SHARDS; i++) {
      collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
          .append("shard", i).append("balance", SEED));
    }
    AtomicInteger callerGiveBacks = new AtomicInteger();
    WriteHook hook = new WriteHook((n, send) -> {
      if (!Thread.currentThread().getName().startsWith("writeguard-must-finish")
          && inGiveBack()) {
        callerGiveBacks.incrementAndGet();
        if (ThreadLocalRandom.current().nextBoolean()) {
          send.call(); // applied, and its reply lost
        }
        throw new MongoSocketReadException("injected: reply lost", new ServerAddress());
      }
      return send.call();
    });
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger mustFinish = (Logger) LoggerFactory.getLogger(MustFinish.class);
    log.start();
    mustFinish.addAppender(log);
    ShardedCounter counter = ShardedCounter.builder(hook.wrap(collection))
        .layout(CounterLayout.DOCUMENTS).shards(SHARDS).lockService(LocalLockService.create())
        .build();
    AtomicLong expected = new AtomicLong(SEED * SHARDS);
    AtomicInteger refused = new AtomicInteger();

    try {
      runAndCheck(counter, collection, id, expected, refused, callerGiveBacks, log);
    } finally {
      mustFinish.detachAppender(log);
    }
  }

  private static void runAndCheck(ShardedCounter counter, MongoCollection<Document> collection,
      String id, AtomicLong expected, AtomicInteger refused, AtomicInteger callerGiveBacks,
      ListAppender<ILoggingEvent> log) throws Exception {
    Concurrently.run(4, Duration.ofSeconds(60), thread -> {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      for (int op = 0; op < 40; op++) {
        if (random.nextInt(3) == 0) {
          long amount = 1 + random.nextInt(5);
          counter.increment(id, amount);
          expected.addAndGet(amount);
          continue;
        }
        long amount = 20 + random.nextInt(120);
        try {
          counter.decrement(id, amount);
          expected.addAndGet(-amount);
        } catch (InsufficientBalanceException e) {
          refused.incrementAndGet();
        } catch (StrandedBalanceException e) {
          refused.incrementAndGet();
          assertThat(e.inDoubtByShard()).as("no take's outcome was in doubt").isEmpty();
          expected.addAndGet(-e.strandedByShard().values().stream().mapToLong(Long::longValue)
              .sum());
        }
      }
    });

    ShardedCounter plain = ShardedCounter.builder(collection).layout(CounterLayout.DOCUMENTS)
        .shards(SHARDS).lockService(LocalLockService.create()).build();
    long until = System.nanoTime() + MustFinish.BUDGET.plusSeconds(2).toNanos();
    while (plain.total(id) != expected.get() - warned(log, id) && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    Thread.sleep(300); // a give-back applied twice would land after the total first matched
    assertThat(callerGiveBacks.get()).as("the run made give-backs go to the background")
        .isPositive();
    assertThat(refused.get()).isPositive();
    assertThat(plain.total(id)).as("shards %s, warned of %s", plain.shardValues(id),
        warned(log, id)).isEqualTo(expected.get() - warned(log, id));
    assertThat(plain.shardValues(id)).allMatch(v -> v >= 0);
  }

  /** The amounts of the give-backs of counter {@code id} the background warned it gave up. */
  private static long warned(ListAppender<ILoggingEvent> log, String id) {
    Pattern given = Pattern.compile("^giving back (\\d+) to shard \\d+ of counter '"
        + Pattern.quote(id) + "': not done");
    long sum = 0;
    for (ILoggingEvent e : List.copyOf(log.list)) {
      Matcher m = given.matcher(e.getFormattedMessage());
      if (e.getLevel() == Level.WARN && m.find()) {
        sum += Long.parseLong(m.group(1));
      }
    }
    return sum;
  }

  private static boolean inGiveBack() {
    return Arrays.stream(Thread.currentThread().getStackTrace())
        .anyMatch(f -> f.getClassName().endsWith("LockedDrainCombiner")
            && f.getMethodName().startsWith("giveBack"));
  }
}
