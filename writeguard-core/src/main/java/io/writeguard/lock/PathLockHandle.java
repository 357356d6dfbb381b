package io.writeguard.lock;

import io.writeguard.internal.LockArguments;
import io.writeguard.path.FieldPath;
import java.util.List;

/**
 * A lock on some field paths of one document, from {@link PathLockService}. {@link #key()} is
 * the document key; {@link #paths()} the locked paths (empty: the whole document). Never lost:
 * in-process locks have no lease. Thread-safe; may be closed from any thread, once.
 */
public final class PathLockHandle extends InProcessLockHandle {
  private final PathLockService service;
  private final PathSet paths;

  PathLockHandle(PathLockService service, String documentKey, PathSet paths, long token, long acquiredAtNanos) {
    super(documentKey, token, acquiredAtNanos);
    this.service = service;
    this.paths = paths;
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
  void release() {
    service.release(this);
  }

  @Override
  public String toString() {
    return "PathLockHandle[" + paths.describe(LockArguments.shorten(key())) + tokenAndState() + "]";
  }
}
