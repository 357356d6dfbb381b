package io.writeguard.app.lab.counter;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The run's hot balances, retired and replaced by fresh ones ({@code g<k>-c<i>}, each opened
 * at the starting balance) every {@code opsPerGeneration} operations.
 *
 * <p>Why generations: every operation leaves its id on a ledger in the document it changes
 * (see {@link CounterRun}). Left alone for a whole run a balance document would collect every
 * id of the run, hundreds of thousands, and every update would get slower as the run goes on
 * (the embedded server copies the whole document on each update; {@code naive} reads and
 * writes it back whole), so strategies would be compared on documents of different sizes. A
 * generation gives each balance {@code max(1024, 16 x clients)} operations: the ledger stays
 * some tens of KB, the balance still wanders far enough to reach zero (refusals, combines),
 * and at any moment all clients still hit the same {@code --docs} balances. An operation in
 * flight while the generation turns finishes on its own balance.
 *
 * <p>Thread-safe. Generation {@code g + 1} is opened by the first client to reach generation
 * {@code g}, so clients rarely wait for it; a client whose generation is not open yet waits.
 */
final class Generations {
  private final int counters;
  private final long opsPerGeneration;
  private final Consumer<List<String>> opener;
  private final AtomicLong sequence = new AtomicLong();
  private final ReentrantLock opening = new ReentrantLock();
  /** Generations {@code [0, opened)} exist; written only under {@link #opening}. */
  private volatile long opened;

  Generations(int counters, int clients, Consumer<List<String>> opener) {
    this.counters = counters;
    this.opsPerGeneration = (long) Math.max(1024, 16 * clients) * counters;
    this.opener = opener;
  }

  static String counterId(long generation, int counter) {
    return "g" + generation + "-c" + counter;
  }

  List<String> ids(long generation) {
    return IntStream.range(0, counters).mapToObj(c -> counterId(generation, c)).toList();
  }

  /** The generation the next operation goes to; makes sure its balances are open. */
  long next() {
    long generation = sequence.getAndIncrement() / opsPerGeneration;
    ensure(generation);
    return generation;
  }

  /** The newest generation clients are writing (the reader samples it). */
  long current() {
    return Math.max(0, Math.min(sequence.get() / opsPerGeneration, opened - 1));
  }

  /** Generations operations went to: {@code 0 .. used() - 1} (at least 1). */
  long used() {
    long handedOut = sequence.get();
    return handedOut == 0 ? 1 : (handedOut - 1) / opsPerGeneration + 1;
  }

  /** Generations opened so far: {@code 0 .. opened() - 1}. */
  long opened() {
    return opened;
  }

  void ensure(long generation) {
    long wanted = generation + 2;
    if (opened >= wanted) {
      return;
    }
    if (opened > generation) {
      if (opening.tryLock()) { // ours is open; open the next unless someone else is
        try {
          openUpTo(wanted);
        } finally {
          opening.unlock();
        }
      }
      return;
    }
    opening.lock();
    try {
      openUpTo(wanted);
    } finally {
      opening.unlock();
    }
  }

  private void openUpTo(long wanted) {
    while (opened < wanted) {
      opener.accept(ids(opened));
      opened = opened + 1;
    }
  }
}
