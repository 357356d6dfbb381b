package io.writeguard.internal;

import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule for a write that records work already done: an idempotent action's outcome, the
 * release of a failed action's claim, a counter's give-back, a lock's release. Not API.
 *
 * <p>Why. Every other operation stops at the caller's deadline, because the caller may still
 * decline the work. These may not: the work they record has happened (the card was charged, the
 * shard was drained, the lock was held), and a recording cut off by the deadline leaves a claim
 * pending until its lease runs out (then the action runs again), a balance drained, a key held.
 * So such a write runs under a budget of its own, {@link #BUDGET} from when it starts, never
 * under the caller's time left. The caller still gets its answer in time: the write (its sends,
 * and the reads that learn its outcome) has the caller's time left, but at least
 * {@link Deadline#OUTCOME_GRACE}, and each send the grace again to learn its outcome, as every
 * write; so the caller waits at most until the later of its deadline and the write's start plus
 * the grace, plus the grace (when its deadline had passed because the work it records ran long:
 * twice the grace from the start of the write). A write not done by then goes on in the
 * background, re-sent with backoff until it succeeds or its own budget ends, and the caller is
 * told so ({@link Continuing}), so it can answer "not known yet" instead of a false success or a
 * false failure.
 *
 * <p>Every write given here must be safe to send again: each one is filtered on its owner's
 * token or carries an operation id, so a second send after a lost reply changes nothing. The
 * write is sent with the thread's interrupt set aside ({@link Uninterrupted}): the driver refuses
 * every call of an interrupted thread. A thread without a deadline keeps its client's own
 * timeouts for the sends it waits for, as before. Stateless apart from the background threads,
 * which are daemons and stop when idle.
 */
public final class MustFinish {
  /** How long a write that records work done may take, counted from its first send: 10 s. */
  public static final Duration BUDGET = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(MustFinish.class);
  /** Sends the caller waits for (while its wait lasts), as the call sites sent before. */
  private static final int SENDS = 3;
  private static final Backoff PAUSES =
      Backoff.exponential(Duration.ofMillis(20), Duration.ofSeconds(1));
  /** Background threads at most; past that, writes queue (each still within its budget). */
  private static final int THREADS = 64;
  private static final AtomicInteger threads = new AtomicInteger();
  private static final ThreadPoolExecutor BACKGROUND = background();

  private MustFinish() {}

  /**
   * Sends {@code write} under its own budget and returns its result.
   *
   * @param what the write, for the log: {@code "storing the outcome of idempotency key 'k'"}
   * @throws Continuing the caller's wait ended before the write was done; it goes on in the
   *     background
   * @throws RuntimeException what the write threw, when sending it again would not help
   */
  public static <T> T call(String what, Supplier<T> write) {
    return call(what, Wait.start(), write);
  }

  /**
   * {@link #call(String, Supplier)} within a wait shared with other writes of the same caller
   * (a drain's give-backs): the caller waits for all of them together no longer than for one.
   */
  public static <T> T call(String what, Wait wait, Supplier<T> write) {
    Deadline own = Deadline.after(BUDGET);
    Deadline answerBy = wait.answerBy == null ? null : wait.answerBy.earlier(own);
    RuntimeException last = null;
    for (int send = 1; send <= SENDS; send++) {
      try {
        return Deadline.replacing(answerBy, () -> Uninterrupted.call(write));
      } catch (RuntimeException e) {
        if (!worthResending(e)) {
          throw e;
        }
        last = e;
        if ((answerBy != null && answerBy.passed()) || own.passed()) {
          break;
        }
      }
    }
    RuntimeException failure = last;
    String goesOn = inBackground(what, write, own, failure)
        ? "it goes on in the background for up to " + BUDGET.toSeconds() + " s"
        : "the background could not take it (the JVM is shutting down)";
    throw new Continuing(what + " was not done when the caller's wait ended; " + goesOn,
        failure);
  }

  /** {@link #call} for a write without a result. */
  public static void run(String what, Runnable write) {
    call(what, () -> {
      write.run();
      return null;
    });
  }

  /**
   * Whether sending the write again may succeed: any driver error except a write error (the
   * server refused the write itself: sending it again is refused again). Not driver errors
   * (a codec's, a bug) are not sent again either.
   */
  static boolean worthResending(RuntimeException e) {
    return e instanceof MongoException && !(e instanceof MongoWriteException);
  }

  private static <T> boolean inBackground(String what, Supplier<T> write, Deadline own,
      RuntimeException first) {
    try {
      BACKGROUND.execute(() -> resend(what, write, own, first));
      return true;
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.warn("{}: not done, and the background could not take it", what, first);
      return false;
    }
  }

  private static <T> void resend(String what, Supplier<T> write, Deadline own,
      RuntimeException first) {
    Throwable last = first;
    boolean hopeless = false;
    for (int send = 1; !own.passed(); send++) {
      try {
        long pause = Math.min(PAUSES.ceiling(send).toNanos(), own.left().toNanos());
        TimeUnit.NANOSECONDS.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      try {
        Deadline.replacing(own, write);
        log.info("{}: done in the background ({} more sends)", what, send);
        return;
      } catch (RuntimeException e) {
        last = e;
        if (!worthResending(e)) {
          hopeless = true;
          break;
        }
      } catch (Throwable e) { // a recorder's update is user code: anything may come out
        last = e;
        hopeless = true;
        break;
      }
    }
    if (hopeless) {
      log.warn("{}: not done, and sending it again cannot help; given up", what, last);
      return;
    }
    log.warn("{}: not done within its own budget of {} s; given up", what, BUDGET.toSeconds(),
        last);
  }

  /**
   * One JVM-wide background for every client: a thread per write in flight, up to
   * {@link #THREADS}, so the sends of a stalled server (each may block for its whole budget)
   * do not keep a write to a server that answers waiting in the queue until its own budget is
   * spent (before: 4 threads, and the fifth write was given up unsent). Threads are made as
   * writes come (below the cap a new one is made even if one is idle) and end when idle.
   */
  private static ThreadPoolExecutor background() {
    ThreadPoolExecutor executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "writeguard-must-finish-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /**
   * How long a caller waits for the writes that record its work done, fixed when it starts
   * waiting: until its deadline, but at least the grace from then. Several writes given one
   * wait keep the caller no longer than one does (before, a drain's give-backs each had a
   * wait of their own, and a drain of 8 shards kept its caller 8 such waits past its
   * deadline). Immutable.
   */
  public static final class Wait {
    private final Deadline answerBy;

    private Wait(Deadline answerBy) {
      this.answerBy = answerBy;
    }

    /** A wait starting now, for the thread's deadline. */
    public static Wait start() {
      Deadline caller = Deadline.current();
      // Null: no deadline, the client's timeouts bound each send, as they did before. Else at
      // least the grace as time left: a write that learns its outcome by a read (an operation
      // id's check) needs the read to work too.
      return new Wait(caller == null ? null
          : caller.endsWithin(Deadline.OUTCOME_GRACE) ? Deadline.after(Deadline.OUTCOME_GRACE)
              : caller);
    }
  }

  /**
   * The caller's wait for a write that records work done ended before the write was done; it
   * goes on in the background within {@link #BUDGET}. Its cause is the last send's error.
   */
  public static final class Continuing extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Continuing(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
