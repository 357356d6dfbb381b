package io.writeguard.version;

import io.writeguard.WriteGuardException;

/**
 * An update or replacement from user code would write the version field, which only the
 * library may write. Thrown by {@link VersionGuard} before anything is sent; nothing was
 * written. Immutable and thread-safe.
 */
public class VersionFieldException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String operator;
  private final String path;

  /**
   * @param operator what tried to write it: {@code $set}, {@code $rename}, ...,
   *     {@code replacement} or {@code insert}
   * @param path the offending path, e.g. {@code version} or {@code version.x}
   * @param detail why, appended to the message
   */
  public VersionFieldException(String operator, String path, String detail) {
    super(operator + " touches '" + path + "': " + detail);
    this.operator = operator;
    this.path = path;
  }

  /** The operator (or {@code replacement} / {@code insert}) that touched the version. */
  public String operator() {
    return operator;
  }

  /** The offending path. */
  public String path() {
    return path;
  }
}
