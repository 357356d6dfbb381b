package io.writeguard.lock;

import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LockArguments;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.FieldPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-process locks on field paths of a document: the seed's "lock {@code infos.k.s.i} instead
 * of the whole document" idea, done so it cannot deadlock or starve.
 *
 * <p>Why it is built this way:
 *
 * <ul>
 *   <li><b>Conflicts by prefix.</b> Two locks on the same document conflict when a path of one
 *       equals or is an ancestor of a path of the other, segment by segment: {@code infos.k.s.0}
 *       conflicts with {@code infos.k} and {@code infos.k.s.0.read}, not with
 *       {@code infos.k.s.1} nor {@code infos.k.s.01}. The whole document is the empty path and
 *       conflicts with everything on that document.
 *   <li><b>All or nothing.</b> One {@code acquire} takes all its paths at once or none, so two
 *       callers can never each hold half of what the other needs: no deadlock, whatever order
 *       the paths are listed in.
 *   <li><b>FIFO among conflicting callers.</b> A request is granted only when it conflicts with
 *       no holder <i>and</i> with no earlier request still waiting. A lock on the whole
 *       document is therefore not starved by a stream of small path locks: once it waits, later
 *       conflicting requests queue behind it. Requests that conflict with nothing ahead of them
 *       do proceed, which is the point of path locks.
 *   <li><b>One critical section per document.</b> Every change of a document's state (grant,
 *       queue, release, give up, drop) runs inside {@code documents.compute(documentKey, ...)},
 *       so hand-offs cannot race timeouts (see {@link #giveUp}) and the entry is removed when
 *       the last holder and waiter leave.
 *   <li>Like {@link LocalLockService}: no polling (waiters are woken by the release that grants
 *       them), handles own their locks, fencing tokens come from one counter for all
 *       documents.
 * </ul>
 *
 * <p>Stored per busy document: {@code documentKey -> {holders: [handle, ...], waiting: [oldest
 * request, ..., newest]}}; a release or a departing waiter re-scans the waiting list in order,
 * so the cost of a release grows with holders x waiters x paths of one document. Meant for
 * tens of concurrent requests per document, not thousands.
 *
 * <p>{@link #acquire(String, Duration)} and {@link #tryAcquire(String)} lock the whole document,
 * so this is also a {@link LockService}. Only for one process. Not reentrant. Thread-safe.
 */
public final class PathLockService implements LockService {
  private final ConcurrentHashMap<String, DocumentState> documents = new ConcurrentHashMap<>();
  private final Ticker ticker;
  private final WriteGuardListener listener;
  private final int maxKeyLength;
  private final FencingTokens tokens;

  private PathLockService(Builder builder) {
    this.ticker = builder.ticker;
    this.listener = WriteGuardListener.safe(builder.listener);
    this.maxKeyLength = builder.maxKeyLength;
    this.tokens = new FencingTokens(builder.firstToken);
  }

  /** A service with the defaults: system ticker, no listener, document keys up to 1024 chars. */
  public static PathLockService create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A caller waiting for {@code paths}. */
  private record Request(PathSet paths, LockWaiter<PathLockHandle> waiter) {}

  /** Busy state of one document. Only touched inside {@code documents.compute(key, ...)}. */
  private static final class DocumentState {
    final List<PathLockHandle> holders = new ArrayList<>(2);
    final List<Request> waiting = new ArrayList<>(2);

    boolean conflictsWithHolders(PathSet paths) {
      for (PathLockHandle holder : holders) {
        if (holder.pathSet().conflictsWith(paths)) {
          return true;
        }
      }
      return false;
    }

    boolean isIdle() {
      return holders.isEmpty() && waiting.isEmpty();
    }
  }

  /** Locks the whole document {@code key}; conflicts with every path lock on it. */
  @Override
  public PathLockHandle acquire(String key, Duration waitTimeout) {
    LockArguments.checkKey("key", key, maxKeyLength);
    return acquire(key, PathSet.WHOLE_DOCUMENT, waitTimeout);
  }

  /** Locks one field path of {@code documentKey}. */
  public PathLockHandle acquire(String documentKey, FieldPath path, Duration waitTimeout) {
    return acquire(documentKey, List.of(Objects.requireNonNull(path, "path must not be null")), waitTimeout);
  }

  /**
   * Locks all of {@code paths} of {@code documentKey} at once, waiting up to
   * {@code waitTimeout} (on the builder's ticker), or to the calling thread's deadline if that
   * comes first. The timeout error names the document and
   * paths, the timeout and how many requests were queued on the document, this one included.
   *
   * @throws IllegalArgumentException if {@code paths} is empty or holds null, the key is blank or
   *     too long, or the timeout not positive
   * @throws LockTimeoutException if the paths were not had in time
   * @throws WriteGuardInterruptedException if interrupted (flag restored)
   */
  public PathLockHandle acquire(String documentKey, Collection<FieldPath> paths, Duration waitTimeout) {
    LockArguments.checkKey("documentKey", documentKey, maxKeyLength);
    return acquire(documentKey, PathSet.of(paths), waitTimeout);
  }

  /** Locks the whole document {@code key} if no lock on it is held or waiting now. */
  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    LockArguments.checkKey("key", key, maxKeyLength);
    return Optional.ofNullable(takeOrQueue(key, PathSet.WHOLE_DOCUMENT, null));
  }

  /**
   * Locks all of {@code paths} if none conflicts with a held lock or an earlier waiting request
   * now; never waits.
   */
  public Optional<PathLockHandle> tryAcquire(String documentKey, Collection<FieldPath> paths) {
    LockArguments.checkKey("documentKey", documentKey, maxKeyLength);
    return Optional.ofNullable(takeOrQueue(documentKey, PathSet.of(paths), null));
  }

  @Override
  public String backend() {
    return LocalLockService.BACKEND;
  }

  /** How many requests are queued on {@code documentKey} now (holders not counted). */
  public int waiting(String documentKey) {
    int[] count = {0};
    documents.computeIfPresent(documentKey, (k, state) -> {
      count[0] = state.waiting.size();
      return state;
    });
    return count[0];
  }

  /** Number of busy documents; idle ones have no entry. For tests. */
  int size() {
    return documents.size();
  }

  /** {@code documentKey} has been checked by the caller. */
  private PathLockHandle acquire(String documentKey, PathSet paths, Duration requestedWait) {
    Duration waitTimeout = LockArguments.waitFor(requestedWait); // cut to the caller's deadline
    long timeoutNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    if (Thread.interrupted()) {
      throw interrupted(documentKey, paths);
    }
    long start = ticker.nanoTime();
    LockWaiter<PathLockHandle> waiter = new LockWaiter<>();
    PathLockHandle now = takeOrQueue(documentKey, paths, waiter);
    if (now != null) {
      listener.onLockWait(LocalLockService.BACKEND, documentKey, Duration.ZERO, true);
      return now;
    }
    LockWaiter.Outcome outcome = waiter.await(ticker, start, timeoutNanos);
    if (outcome == LockWaiter.Outcome.GRANTED) {
      return granted(documentKey, start, waiter.granted());
    }
    int[] queued = {0};
    PathLockHandle handedOver = giveUp(documentKey, waiter, queued);
    if (outcome == LockWaiter.Outcome.INTERRUPTED) {
      if (handedOver != null) {
        handedOver.close(); // the interrupt wins: release, which grants whoever can go next
      }
      throw interrupted(documentKey, paths);
    }
    if (handedOver != null) {
      return granted(documentKey, start, handedOver); // granted as the deadline passed: keep it
    }
    listener.onLockWait(LocalLockService.BACKEND, documentKey, Duration.ofNanos(ticker.nanoTime() - start), false);
    throw new LockTimeoutException(LocalLockService.BACKEND, paths.describe(documentKey), waitTimeout, queued[0]);
  }

  private PathLockHandle granted(String documentKey, long start, PathLockHandle handle) {
    listener.onLockWait(LocalLockService.BACKEND, documentKey, Duration.ofNanos(ticker.nanoTime() - start), true);
    return handle;
  }

  /**
   * Grants {@code paths} now if they conflict with no holder and no waiting request (all of
   * which are ahead of this one); otherwise queues {@code waiter}, if any, at the end.
   */
  private PathLockHandle takeOrQueue(String documentKey, PathSet paths, LockWaiter<PathLockHandle> waiter) {
    PathLockHandle[] taken = {null};
    documents.compute(documentKey, (k, state) -> {
      DocumentState s = state == null ? new DocumentState() : state;
      if (!s.conflictsWithHolders(paths) && !conflictsWithAnyWaiting(s, paths, s.waiting.size())) {
        taken[0] = newHandle(k, paths);
        s.holders.add(taken[0]);
      } else if (waiter != null) {
        s.waiting.add(new Request(paths, waiter));
      }
      return s.isIdle() ? null : s;
    });
    return taken[0];
  }

  /**
   * Leaves the queue after a timeout or an interrupt, unless the paths were granted already.
   *
   * <p>Guard against the race with a release (or another waiter leaving) that grants this
   * request at the very instant its deadline passes: both decide inside
   * {@code documents.compute} for the same document, so exactly one happens first. Either we
   * were granted (we return the handle; the caller keeps it or releases it) or we left the
   * queue and no one will grant us. Leaving may unblock requests that waited only because of
   * us, so the queue is re-scanned before the section ends.
   *
   * @return the handle granted before we could leave, or null if we left the queue
   */
  private PathLockHandle giveUp(String documentKey, LockWaiter<PathLockHandle> waiter, int[] queued) {
    PathLockHandle[] handedOver = {null};
    List<LockWaiter<PathLockHandle>> toWake = new ArrayList<>(0);
    documents.computeIfPresent(documentKey, (k, state) -> {
      handedOver[0] = waiter.granted();
      if (handedOver[0] == null) {
        queued[0] = state.waiting.size();
        state.waiting.removeIf(request -> request.waiter() == waiter);
        grantWhatCanGo(k, state, toWake);
      }
      return state.isIdle() ? null : state;
    });
    toWake.forEach(LockWaiter::wake);
    return handedOver[0];
  }

  /** Called once per handle, by {@link PathLockHandle#close()}. */
  void release(PathLockHandle handle) {
    List<LockWaiter<PathLockHandle>> toWake = new ArrayList<>(0);
    documents.computeIfPresent(handle.key(), (k, state) -> {
      if (state.holders.remove(handle)) {
        grantWhatCanGo(k, state, toWake);
      }
      return state.isIdle() ? null : state;
    });
    toWake.forEach(LockWaiter::wake);
    listener.onLockReleased(LocalLockService.BACKEND, handle.key(), handle.token(),
        Duration.ofNanos(ticker.nanoTime() - handle.acquiredAtNanos()));
  }

  /**
   * Grants, oldest first, every waiting request that conflicts with no holder and no earlier
   * request still waiting. The oldest request waits only for holders, so when the last holder
   * leaves it always goes: nobody waits forever behind an empty document.
   */
  private void grantWhatCanGo(String documentKey, DocumentState state, List<LockWaiter<PathLockHandle>> toWake) {
    int stillWaiting = 0;
    for (Iterator<Request> it = state.waiting.iterator(); it.hasNext(); ) {
      Request request = it.next();
      if (state.conflictsWithHolders(request.paths())
          || conflictsWithAnyWaiting(state, request.paths(), stillWaiting)) {
        stillWaiting++;
        continue;
      }
      PathLockHandle handle = newHandle(documentKey, request.paths());
      state.holders.add(handle);
      request.waiter().grant(handle);
      toWake.add(request.waiter());
      it.remove();
    }
  }

  /** Whether {@code paths} conflicts with one of the first {@code count} waiting requests. */
  private static boolean conflictsWithAnyWaiting(DocumentState state, PathSet paths, int count) {
    for (int i = 0; i < count; i++) {
      if (state.waiting.get(i).paths().conflictsWith(paths)) {
        return true;
      }
    }
    return false;
  }

  private PathLockHandle newHandle(String documentKey, PathSet paths) {
    return new PathLockHandle(this, documentKey, paths, tokens.next(), ticker.nanoTime());
  }

  private static WriteGuardInterruptedException interrupted(String documentKey, PathSet paths) {
    return new WriteGuardInterruptedException("waiting for local path lock '"
        + paths.describe(LockArguments.shorten(documentKey)) + "'", new InterruptedException());
  }

  /** Not thread-safe; {@link #build()} copies the settings into an immutable service. */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private int maxKeyLength = 1024;
    private long firstToken = FencingTokens.defaultFirst();

    private Builder() {}

    /** Where wait timeouts and hold times are measured; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /** Receives lock waits and releases (keyed by document); what it throws is logged and ignored. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /** Longest accepted document key; default 1024. */
    public Builder maxKeyLength(int maxKeyLength) {
      this.maxKeyLength = Checks.atLeast("maxKeyLength", maxKeyLength, 1);
      return this;
    }

    /** The first fencing token; default as in {@link LocalLockService.Builder#firstToken}. */
    public Builder firstToken(long firstToken) {
      this.firstToken = Checks.atLeast("firstToken", firstToken, 1);
      return this;
    }

    public PathLockService build() {
      return new PathLockService(this);
    }
  }
}
