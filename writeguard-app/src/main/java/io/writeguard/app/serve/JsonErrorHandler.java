package io.writeguard.app.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answer to requests it refuses before any route runs (a NUL or bad UTF-8 in the
 * path, an ambiguous path, a request line past the header buffer), in the service's error
 * shape {@code {"error": "..."}} instead of Jetty's HTML page. Never a stack trace: only the
 * status reason and Jetty's short message, shortened and with control characters masked.
 * {@code Connection: close} says what Jetty does after such a request anyway; without it a
 * client may reuse the connection Jetty is closing and see its next request fail.
 * Thread-safe (stateless).
 */
final class JsonErrorHandler extends ErrorHandler {
  JsonErrorHandler() {
    setShowStacks(false);
    setShowCauses(false);
  }

  @Override
  protected void generateResponse(Request request, Response response, int code, String message,
      Throwable cause, Callback callback) throws IOException {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, ReadInfoApi.JSON);
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    response.write(true, ByteBuffer.wrap(body(code, message)), callback);
  }

  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, ReadInfoApi.JSON));
    fields.put(new HttpField(HttpHeader.CONNECTION, "close"));
    return ByteBuffer.wrap(body(status, reason));
  }

  static byte[] body(int code, String message) {
    String reason = HttpStatus.getMessage(code);
    String text = message == null || message.isBlank() || message.equals(reason)
        ? reason : reason + ": " + message;
    String escaped = Shown.value(text).replace("\\", "\\\\").replace("\"", "\\\"");
    return ("{\"error\":\"" + escaped + "\"}").getBytes(StandardCharsets.UTF_8);
  }
}
