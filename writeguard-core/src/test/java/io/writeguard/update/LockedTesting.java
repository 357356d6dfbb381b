package io.writeguard.update;

import io.writeguard.Ticker;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.bson.Document;

/**
 * What the LockedUpdater tests share: bounded waits, a lock whose tokens a test scripts, fake
 * handles of holders nobody else knows of, and the mutation they all make. The group-commit
 * hand-back tests use its waits and its stalling ticker too.
 */
public final class LockedTesting {
  private static final long BOUND_SECONDS = 60;

  private LockedTesting() {}

  /** n + 1 and {@code mark} appended to {@code log}, as a whole replacement. */
  static Mutation replaced(Document current, String mark) {
    current.put("n", ((Number) current.get("n")).longValue() + 1);
    List<String> log = new ArrayList<>(current.getList("log", String.class));
    log.add(mark);
    current.put("log", log);
    return Mutation.replace(current);
  }

  /**
   * The first update of a document held inside its mutator (inside its batch, and under a lock
   * inside its hold) until {@link #release()}: the updates {@link #queue}d meanwhile form the
   * next batch, in the order queued.
   */
  static final class HeldBatch {
    private final CountDownLatch inside = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final ExecutorService pool;
    private final Function<Mutator, UpdateOutcome> update;
    private final IntSupplier waiting;
    final Future<UpdateOutcome> first;

    /**
     * @param update runs an update of the document (e.g. {@code m -> updater.update(id, m)})
     * @param waiting the updates of the document queued (e.g. {@code () -> updater.waiting(id)})
     * @param then what the first update does once released
     */
    HeldBatch(ExecutorService pool, Function<Mutator, UpdateOutcome> update, IntSupplier waiting,
        Mutator then) {
      this.pool = pool;
      this.update = update;
      this.waiting = waiting;
      first = pool.submit(() -> update.apply(current -> {
        inside.countDown();
        await(release);
        return then.mutate(current);
      }));
      await(inside);
    }

    /** Queues an update behind the held one and waits until it is queued. */
    Future<UpdateOutcome> queue(Mutator mutator) {
      int before = waiting.getAsInt();
      Future<UpdateOutcome> f = pool.submit(() -> update.apply(mutator));
      waitUntil(() -> waiting.getAsInt() == before + 1);
      return f;
    }

    /** Lets the first update go on, and waits for it. */
    UpdateOutcome release() throws Exception {
      release.countDown();
      return first.get(BOUND_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** Waits for {@code latch}; fails the test if it is not released within the bound. */
  public static void await(CountDownLatch latch) {
    if (!awaitAtMost(latch, Duration.ofSeconds(BOUND_SECONDS))) {
      throw new AssertionError("latch not released in " + BOUND_SECONDS + "s");
    }
  }

  /** Waits for {@code latch} up to {@code wait}; false when it was not released by then. */
  static boolean awaitAtMost(CountDownLatch latch, Duration wait) {
    try {
      return latch.await(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Spins until {@code condition}, which another thread makes true, within the bound. */
  public static void waitUntil(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in " + BOUND_SECONDS + "s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  /** Spins for {@code millis} (a test's pause, which an interrupt does not cut short). */
  static void pause(long millis) {
    long t0 = System.nanoTime();
    waitUntil(() -> System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /**
   * The system ticker, except that the thread {@code stallOn} names, once, is held in its next
   * look at the clock until {@code unstall} opens (at most 20 s: never hangs the build): how a
   * test holds a caller's thread in its look at its wait, to force an interleaving.
   */
  static Ticker stallingTicker(AtomicReference<Thread> stallOn, CountDownLatch unstall) {
    return () -> {
      Thread me = Thread.currentThread();
      if (me == stallOn.get() && stallOn.compareAndSet(me, null)) {
        awaitAtMost(unstall, Duration.ofSeconds(20));
      }
      return System.nanoTime();
    };
  }

  /** What {@code f} failed with, or null when it succeeded; bounded. */
  static Throwable failureOf(Future<?> f) {
    try {
      f.get(BOUND_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /**
   * What {@code f} failed with, null when it succeeded, or the {@link TimeoutException} when it
   * was not answered within {@code bound}: for a test whose point is when the answer comes.
   */
  static Throwable failureWithin(Future<?> f, Duration bound) {
    try {
      f.get(bound.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Records each update's last event: {@code success}, {@code exhausted}, {@code failure:<Class>}. */
  public static final class TerminalEvents implements WriteGuardListener {
    public final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
      events.add("success");
    }

    @Override
    public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
      events.add("exhausted");
    }

    @Override
    public void onFailure(OperationScope scope, Object key, Throwable error) {
      events.add("failure:" + error.getClass().getSimpleName());
    }
  }

  /** A handle of {@code token} that no service knows of: a newer holder, or a broken lock's. */
  static LockHandle holderWith(long token) {
    return new LockHandle() {
      @Override
      public String key() {
        return "docs:d";
      }

      @Override
      public long token() {
        return token;
      }

      @Override
      public boolean isLost() {
        return false;
      }

      @Override
      public boolean isReleased() {
        return false;
      }

      @Override
      public void close() {}
    };
  }

  /** A lock that lets every caller in at once, each with {@code token}: a broken one. */
  static LockService everyoneAt(long token) {
    return new LockService() {
      @Override
      public LockHandle acquire(String key, Duration waitTimeout) {
        return holderWith(token);
      }

      @Override
      public Optional<LockHandle> tryAcquire(String key) {
        return Optional.of(holderWith(token));
      }

      @Override
      public String backend() {
        return "broken";
      }
    };
  }

  /**
   * An exclusive in-process lock whose handles carry the tokens {@code tokens} gives (instead
   * of the local service's) and that counts its acquisitions; the next handle can be made one
   * that already knows its lease is lost.
   */
  /**
   * {@code local}, with {@code acquire} in place of its own acquire (a test's recording or
   * scripted take); the rest is {@code local}'s.
   */
  static LockService acquiringThrough(LocalLockService local,
      BiFunction<String, Duration, LockHandle> acquire) {
    return new LockService() {
      @Override
      public LockHandle acquire(String key, Duration waitTimeout) {
        return acquire.apply(key, waitTimeout);
      }

      @Override
      public Optional<LockHandle> tryAcquire(String key) {
        return local.tryAcquire(key);
      }

      @Override
      public String backend() {
        return local.backend();
      }
    };
  }

  static final class ScriptedLocks implements LockService {
    final LocalLockService local = LocalLockService.create();
    final AtomicInteger acquired = new AtomicInteger();
    private final LongSupplier tokens;
    volatile boolean nextIsLost;

    ScriptedLocks(LongSupplier tokens) {
      this.tokens = tokens;
    }

    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      LockHandle held = local.acquire(key, waitTimeout);
      acquired.incrementAndGet();
      long token = tokens.getAsLong();
      boolean lost = nextIsLost;
      nextIsLost = false;
      return new LockHandle() {
        @Override
        public String key() {
          return key;
        }

        @Override
        public long token() {
          return token;
        }

        @Override
        public boolean isLost() {
          return lost;
        }

        @Override
        public boolean isReleased() {
          return held.isReleased();
        }

        @Override
        public void close() {
          held.close();
        }
      };
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String backend() {
      return "scripted";
    }
  }
}
