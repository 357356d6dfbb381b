package io.writeguard.app.serve;

import io.writeguard.WriteGuardException;

/**
 * A request the HTTP layer refuses before or instead of touching the database: its status,
 * a message for the client and, for bad input, the name of the field at fault ({@code id},
 * {@code key}, {@code skey}, {@code i}, {@code strategy}, {@code infos...}). The
 * {@link ErrorMapper} turns it into {@code {"error": ..., "field": ...}}. Immutable.
 */
public final class ApiException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String field;

  public ApiException(int status, String message, String field) {
    super(message);
    this.status = status;
    this.field = field;
  }

  /** 400 naming the field. */
  public static ApiException badRequest(String field, String message) {
    return new ApiException(400, message, field);
  }

  /** 401: no usable identity. */
  public static ApiException unauthorized(String message) {
    return new ApiException(401, message, null);
  }

  /** 404 naming what is missing ({@code id} for the document, {@code i} for an item). */
  public static ApiException notFound(String field, String message) {
    return new ApiException(404, message, field);
  }

  /** 413: the body is larger than the limit. */
  public static ApiException tooLarge(long limit) {
    return new ApiException(413, "request body is larger than " + limit + " bytes", null);
  }

  public int status() {
    return status;
  }

  /** The request field at fault, or null. */
  public String field() {
    return field;
  }
}
