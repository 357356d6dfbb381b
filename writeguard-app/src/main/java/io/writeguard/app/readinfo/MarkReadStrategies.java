package io.writeguard.app.readinfo;

import io.writeguard.lock.LockService;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Makes the mark-as-read strategies by name, for the lab ({@code --strategies}) and the HTTP
 * service (its configured strategy). Stateless.
 *
 * <table>
 *   <caption>Strategies</caption>
 *   <tr><th>name</th><th>one mark</th><th>safe across processes?</th></tr>
 *   <tr><td>{@code naive}</td><td>find, add in Java, replaceOne (the seed without its
 *       lock)</td><td>no: loses marks even in one process</td></tr>
 *   <tr><td>{@code atomic}</td><td>one {@code $addToSet} (+ version)</td><td>yes</td></tr>
 *   <tr><td>{@code optimistic}</td><td>versioned read-change-write with retries</td>
 *       <td>yes</td></tr>
 *   <tr><td>{@code local-lock}</td><td>in-process lock, find, replaceOne</td><td>no: one
 *       process only</td></tr>
 *   <tr><td>{@code mongo-lock}, {@code redis-lock}</td><td>lease lock, fenced claim and
 *       replaceOne</td><td>yes</td></tr>
 *   <tr><td>{@code adaptive}</td><td>optimistic; a hot document's marks queue on a lock</td>
 *       <td>yes (the version is the fence)</td></tr>
 * </table>
 */
public final class MarkReadStrategies {
  /** Every strategy's name, in the order the lab lists them. */
  public static final List<String> NAMES = List.of(NaiveMarkRead.NAME, AtomicMarkRead.NAME,
      OptimisticMarkRead.NAME, LockedMarkRead.LOCAL, LockedMarkRead.MONGO, LockedMarkRead.REDIS,
      AdaptiveMarkRead.NAME);

  private MarkReadStrategies() {}

  /**
   * The strategy called {@code name}, working on {@code deps}.
   *
   * @throws IllegalArgumentException naming an unknown strategy and listing the valid ones, or
   *     naming the lock service a strategy needs and {@code deps} lacks
   */
  public static MarkReadStrategy create(String name, MarkReadDeps deps) {
    Objects.requireNonNull(deps, "deps must not be null");
    if (name == null) {
      throw unknown(null);
    }
    switch (name) {
      case NaiveMarkRead.NAME:
        return new NaiveMarkRead(deps);
      case AtomicMarkRead.NAME:
        return new AtomicMarkRead(deps);
      case OptimisticMarkRead.NAME:
        return new OptimisticMarkRead(deps);
      case LockedMarkRead.LOCAL:
        return LockedMarkRead.local(deps);
      case LockedMarkRead.MONGO:
        return LockedMarkRead.fenced(name, deps, need(name, deps.mongoLocks().orElse(null),
            () -> "a MongoDB lease lock service (MarkReadDeps.Builder.mongoLocks)"));
      case LockedMarkRead.REDIS:
        return LockedMarkRead.fenced(name, deps, need(name, deps.redisLocks().orElse(null),
            () -> "a Redis lock service, and none is configured (give --redis-uri or set"
                + " REDIS_URI)"));
      case AdaptiveMarkRead.NAME:
        return AdaptiveMarkRead.create(deps);
      default:
        throw unknown(name);
    }
  }

  private static LockService need(String name, LockService locks, Supplier<String> what) {
    if (locks == null) {
      throw new IllegalArgumentException("strategy '" + name + "' needs " + what.get());
    }
    return locks;
  }

  private static IllegalArgumentException unknown(String name) {
    return new IllegalArgumentException("unknown mark-as-read strategy "
        + (name == null ? "null" : "'" + name + "'") + " (valid: " + String.join(", ", NAMES) + ")");
  }
}
