package io.writeguard.combine;

import static io.writeguard.combine.CombinerWaiter.PENDING;
import static io.writeguard.combine.CombinerWaiter.TAKEN;
import static io.writeguard.combine.CombinerWaiter.WITHDRAWN;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The queue and the leader flag of one key of a {@link KeyedCombiner}. Callers add at the
 * tail; only the leader takes, from the head, and puts requests handed back at the head (they
 * are older than what queued since). Thread-safe.
 */
final class CombinerSlot<T, R> {
  private final ConcurrentLinkedDeque<CombinerWaiter<T, R>> queue = new ConcurrentLinkedDeque<>();
  final AtomicBoolean leading = new AtomicBoolean();
  volatile Thread leader; // set and cleared by the leader while it holds `leading`
  final AtomicInteger users = new AtomicInteger(1); // its creator; never revived from 0

  void add(CombinerWaiter<T, R> waiter) {
    queue.add(waiter);
  }

  /** Puts a request handed back at the head (the leader only). */
  void requeueFirst(CombinerWaiter<T, R> waiter) {
    queue.addFirst(waiter);
  }

  /** Requests queued that no batch has taken yet. */
  int waiting() {
    int n = 0;
    for (CombinerWaiter<T, R> w : queue) {
      if (w.state.get() == PENDING) {
        n++;
      }
    }
    return n;
  }

  /**
   * The next batch: the oldest requests queued, up to {@code maxBatch}, always with the
   * leader's own ({@code me}). When {@code maxBatch - 1} or more are ahead of it, it takes the
   * last place and those after them wait for the next leader: a leader runs one batch, its
   * own, so its caller's deadline bounds its thread too (it never runs other callers' batches
   * first). The leader only.
   */
  List<CombinerWaiter<T, R>> take(CombinerWaiter<T, R> me, int maxBatch) {
    List<CombinerWaiter<T, R>> taken;
    if (maxBatch > 1) {
      CombinerWaiter<T, R> first = takeNext();
      if (first == me && queue.isEmpty()) {
        return List.of(me); // alone, as most callers are: no list to grow
      }
      taken = new ArrayList<>(Math.min(maxBatch, 16));
      boolean mine = false;
      CombinerWaiter<T, R> next = first;
      while (next != null) {
        taken.add(next);
        mine |= next == me;
        next = taken.size() < (mine ? maxBatch : maxBatch - 1) ? takeNext() : null;
      }
      if (mine) {
        return taken;
      }
    } else {
      taken = new ArrayList<>(1);
      dropWithdrawnAtHead(); // nothing else polls the queue when batches are of one
    }
    if (me.state.compareAndSet(PENDING, TAKEN)) {
      queue.removeFirstOccurrence(me); // out of its place, so the queue never keeps it
      taken.add(me);
    }
    return taken;
  }

  /** The oldest queued request no one withdrew, now taken; null when there is none. */
  private CombinerWaiter<T, R> takeNext() {
    while (true) {
      CombinerWaiter<T, R> head = queue.poll(); // only the leader polls
      if (head == null) {
        return null;
      }
      if (head.state.compareAndSet(PENDING, TAKEN)) {
        return head;
      }
    }
  }

  /**
   * Drops the requests at the head that no batch may take any more (withdrawn), so that a
   * queue whose leaders take only their own requests does not keep them while the key is in
   * use.
   */
  private void dropWithdrawnAtHead() {
    CombinerWaiter<T, R> head;
    while ((head = queue.peekFirst()) != null && head.state.get() == WITHDRAWN) {
      queue.removeFirstOccurrence(head); // only the leader removes others' requests
    }
  }

  /** Wakes the first queued caller when nobody leads, so it can lead. */
  void signalNext() {
    if (leading.get() || queue.isEmpty()) {
      return; // the leader signals when it stops; an empty queue has no one to wake
    }
    for (CombinerWaiter<T, R> w : queue) {
      if (w.state.get() == PENDING) {
        LockSupport.unpark(w.thread);
        return;
      }
    }
  }
}
