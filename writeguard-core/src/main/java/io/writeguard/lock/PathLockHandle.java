package io.writeguard.lock;

import io.writeguard.internal.LockArguments;
import io.writeguard.path.FieldPath;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lock on some field paths of one document, from {@link PathLockService}. {@link #key()} is
 * the document key; {@link #paths()} the locked paths (empty: the whole document). Never lost:
 * in-process locks have no lease. Thread-safe; may be closed from any thread, once.
 */
public final class PathLockHandle implements LockHandle {
  private final PathLockService service;
  private final String documentKey;
  private final PathSet paths;
  private final long token;
  private final long acquiredAtNanos;
  private final AtomicBoolean released = new AtomicBoolean();

  PathLockHandle(PathLockService service, String documentKey, PathSet paths, long token, long acquiredAtNanos) {
    this.service = service;
    this.documentKey = documentKey;
    this.paths = paths;
    this.token = token;
    this.acquiredAtNanos = acquiredAtNanos;
  }

  /** The document key. */
  @Override
  public String key() {
    return documentKey;
  }

  /**
   * The locked paths, reduced (no duplicates, none under another) and sorted; empty when the
   * whole document is locked.
   */
  public List<FieldPath> paths() {
    return paths.paths();
  }

  /** True when this handle locks the whole document. */
  public boolean isWholeDocument() {
    return paths.isWholeDocument();
  }

  PathSet pathSet() {
    return paths;
  }

  @Override
  public long token() {
    return token;
  }

  long acquiredAtNanos() {
    return acquiredAtNanos;
  }

  /** Always false: an in-process lock lives as long as its handle is open. */
  @Override
  public boolean isLost() {
    return false;
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      service.release(this);
    }
  }

  @Override
  public String toString() {
    return "PathLockHandle[" + paths.describe(LockArguments.shorten(documentKey)) + ", token=" + token
        + (released.get() ? ", released" : "") + "]";
  }
}
