package io.writeguard.app.serve;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the client gets for a refused or failed request: status, a one-line message, the
 * request field at fault (or null) and, for 409/503, the {@code Retry-After} seconds (or
 * null). Never a stack trace or a class name. Immutable.
 */
public record ErrorResponse(int status, String error, String field, Integer retryAfterSeconds) {

  /** The JSON body: {@code {"error": ..., "field": ...}}, {@code field} only when known. */
  public Map<String, Object> body() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", error);
    if (field != null) {
      body.put("field", field);
    }
    return body;
  }
}
