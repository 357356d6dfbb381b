package io.writeguard.spring;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lock held by the innermost {@link LeaseLocked} method running on this thread.
 *
 * <p>Bound to the call and the thread: work the method hands to another thread does not see
 * it (pass the {@code LockHandle} along instead). Nested locked methods stack, and each call
 * unbinds its own handle when it ends. Thread-safe (each thread sees its own).
 */
public final class CurrentLock {
  private static final ThreadLocal<Deque<Held>> HELD = new ThreadLocal<>();

  private CurrentLock() {}

  /**
   * The handle of the innermost {@link LeaseLocked} call on this thread.
   *
   * @throws IllegalStateException when no {@link LeaseLocked} method is running on this thread
   */
  public static LockHandle get() {
    LockHandle handle = find().orElse(null);
    if (handle == null) {
      throw new IllegalStateException("no @LeaseLocked method is running on thread "
          + Thread.currentThread().getName());
    }
    return handle;
  }

  /** The innermost handle, if a {@link LeaseLocked} method is running on this thread. */
  public static Optional<LockHandle> find() {
    Deque<Held> held = HELD.get();
    return held == null ? Optional.empty() : Optional.of(held.peek().handle());
  }

  /** The fencing token of {@link #get()}. */
  public static long token() {
    return get().token();
  }

  static boolean holds(LockService service, String key) {
    Deque<Held> stack = HELD.get();
    if (stack == null) {
      return false;
    }
    for (Held held : stack) {
      if (held.service() == service && held.handle().key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  static void bind(LockHandle handle, LockService service) {
    Deque<Held> stack = HELD.get();
    if (stack == null) {
      stack = new ArrayDeque<>();
      HELD.set(stack);
    }
    stack.push(new Held(handle, service));
  }

  static void unbind(LockHandle handle) {
    Deque<Held> held = HELD.get();
    if (held == null) {
      return;
    }
    held.removeIf(h -> h.handle() == handle);
    if (held.isEmpty()) {
      HELD.remove();
    }
  }

  /** A held handle and the service it came from, for the reentrancy check. */
  private record Held(LockHandle handle, LockService service) {}
}
