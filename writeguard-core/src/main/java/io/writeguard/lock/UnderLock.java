package io.writeguard.lock;

import io.writeguard.internal.Uninterrupted;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work under a held lock, then releases it, without letting a failed release hide what
 * the work did. Stateless.
 *
 * <p>Why not try-with-resources: there a release that throws after the work returned replaces
 * the work's result with the release's error, so a caller is told an applied write failed and
 * may apply it again (a decrement taken twice). A lease lock's release is a write to its
 * backend and can fail; the lease then runs out by itself. So: work that returned wins and a
 * failed release is only logged; work that threw keeps its error, with the release's attached
 * as suppressed.
 *
 * <p>An interrupt the work left pending (an interrupt it deferred until it was done, say) is
 * set aside for the release and restored after it ({@link Uninterrupted}): a driver refuses to
 * send the release of an interrupted thread, and the lease would stay taken until it runs out.
 */
public final class UnderLock {
  private static final Logger log = LoggerFactory.getLogger(UnderLock.class);

  private UnderLock() {}

  /** Runs {@code work}, then closes {@code lock}; see the class comment for failures. */
  public static <T> T run(LockHandle lock, Supplier<T> work) {
    return run(lock, work, () -> false);
  }

  /**
   * Runs {@code work}, then closes {@code lock}, with {@link LockHandle#closeForSuccessor()}
   * when {@code successorComing} says, after the work, that another caller of this process is
   * about to ask for the key; see the class comment for failures.
   */
  public static <T> T run(LockHandle lock, Supplier<T> work, BooleanSupplier successorComing) {
    T result;
    try {
      result = work.get();
    } catch (Throwable e) { // a checked exception thrown undeclared too: released, rethrown as is
      RuntimeException releaseFailure = release(lock, false);
      if (releaseFailure != null) {
        e.addSuppressed(releaseFailure);
      }
      throw e;
    }
    RuntimeException releaseFailure = release(lock, successorComing.getAsBoolean());
    if (releaseFailure != null) {
      log.warn("lock '{}' (token {}): the work under it is done and stands; releasing it failed,"
          + " it frees itself when its lease runs out", lock.key(), lock.token(), releaseFailure);
    }
    return result;
  }

  /** Closes {@code lock} with the interrupt flag set aside; what it threw, or null. */
  private static RuntimeException release(LockHandle lock, boolean successorComing) {
    try {
      Uninterrupted.run(successorComing ? lock::closeForSuccessor : lock::close);
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
