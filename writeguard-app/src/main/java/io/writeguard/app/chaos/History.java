package io.writeguard.app.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The operations of one fault, from this process and its children, in completion order.
 * Thread-safe: clients of many threads add to it.
 */
public final class History implements Consumer<Op> {
  private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();

  @Override
  public void accept(Op op) {
    ops.add(op);
  }

  public List<Op> ops() {
    return new ArrayList<>(ops);
  }
}
