package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of the lock-free entry and exit of a key's slot: callers come and go so often that a
 * key's slot is dropped and made again thousands of times, while queued callers withdraw (a
 * zero wait behind a running leader, an interrupt) and leave at the same moment as others
 * arrive. A second live slot for a key would show as two steps for the key at once, or as a
 * step whose thread is not the key's leader by {@link KeyedCombiner#isLeading}; a request
 * left in a dropped slot's queue would never be answered (the run would not end); a request
 * withdrawn and run anyway, or run and not answered to its caller, would break the exact
 * accounting below.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KeyedCombinerSlotsReviewTest {

  @Test
  void slotsRemadeWhileQueuedRequestsWithdrawStrandAndDoubleNothing() throws Exception {
    int threads = 16;
    int perThread = 15_000;
    String[] keys = {"a", "b"};
    AtomicInteger[] inStep = {new AtomicInteger(), new AtomicInteger()};
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger notLeading = new AtomicInteger();
    AtomicInteger ranTwice = new AtomicInteger();
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    AtomicReference<KeyedCombiner<Integer, Integer>> self = new AtomicReference<>();
    LongAdder parks = new LongAdder();
    KeyedCombiner<Integer, Integer> combiner = KeyedCombiner.<Integer, Integer>builder(
        (key, batch) -> {
          if (!self.get().isLeading(key)) {
            notLeading.incrementAndGet(); // leading a slot the map no longer holds
          }
          AtomicInteger running = inStep[key.equals("a") ? 0 : 1];
          if (running.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          Thread.yield(); // widen the window a second leader would need
          for (int i = 0; i < batch.size(); i++) {
            if (!ran.add(batch.request(i))) {
              ranTwice.incrementAndGet();
            }
            batch.succeed(i, batch.request(i) + 1);
          }
          running.decrementAndGet();
        }).maxBatch(4).onPark(parks::increment).build();
    self.set(combiner);

    Set<Integer> succeeded = ConcurrentHashMap.newKeySet();
    Set<Integer> timedOut = ConcurrentHashMap.newKeySet();
    Set<Integer> interrupted = ConcurrentHashMap.newKeySet();
    AtomicInteger wrongAnswers = new AtomicInteger();
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      workers.add(new Thread(() -> {
        for (int n = 0; n < perThread; n++) {
          int request = me * perThread + n;
          // A zero wait leads when nobody does and withdraws at once behind a leader; the
          // others wait longer than the join below, so a stranded request fails the run.
          Duration wait = n % 3 == 0 ? Duration.ZERO : Duration.ofMinutes(10);
          try {
            int answer = combiner.submit(keys[(me + n) % 2], request, wait);
            if (answer != request + 1) {
              wrongAnswers.incrementAndGet();
            }
            succeeded.add(request);
          } catch (CombineTimeoutException e) {
            timedOut.add(request);
          } catch (CombineInterruptedException e) {
            interrupted.add(request);
          } catch (Throwable e) {
            unexpected.add(e);
          }
          Thread.interrupted(); // an interrupt that came while running or between calls
          if (n % 7 == 0) {
            Thread.yield(); // let the key's users fall to zero now and then
          }
        }
      }, "slots-" + t));
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread interrupter = new Thread(() -> {
      while (!stop.get()) {
        workers.get(ThreadLocalRandom.current().nextInt(threads)).interrupt();
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
      }
    }, "slots-interrupter");
    workers.forEach(Thread::start);
    interrupter.start();
    for (Thread w : workers) {
      w.join(TimeUnit.SECONDS.toMillis(150));
    }
    stop.set(true);
    interrupter.join(TimeUnit.SECONDS.toMillis(10));
    for (Thread w : workers) {
      assertThat(w.isAlive()).as("%s finished (a stranded request never would)", w.getName())
          .isFalse();
    }

    assertThat(unexpected).isEmpty();
    assertThat(overlaps).as("two steps for one key at once").hasValue(0);
    assertThat(notLeading).as("a step run by a leader of a slot the map dropped").hasValue(0);
    assertThat(ranTwice).hasValue(0);
    assertThat(wrongAnswers).hasValue(0);
    Set<Integer> all = new HashSet<>(succeeded);
    all.addAll(timedOut);
    all.addAll(interrupted);
    assertThat(succeeded.size() + timedOut.size() + interrupted.size())
        .as("each request ends exactly one way").isEqualTo(threads * perThread)
        .isEqualTo(all.size());
    assertThat(ran).as("run exactly the requests answered; none withdrawn was run")
        .isEqualTo(succeeded);
    assertThat(timedOut).as("withdrawals happened while slots were remade").isNotEmpty();
    assertThat(combiner.liveKeys()).as("no slot outlives its users").isZero();
    assertThat(combiner.waiting("a") + combiner.waiting("b")).isZero();
    System.out.println("KeyedCombinerSlotsReviewTest: " + succeeded.size() + " answered, "
        + timedOut.size() + " withdrawn at their deadline, " + interrupted.size()
        + " withdrawn on interrupt, " + parks.sum() + " parks");
  }
}
