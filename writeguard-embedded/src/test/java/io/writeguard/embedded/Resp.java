package io.writeguard.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal Redis client speaking RESP over a plain socket, just enough for the tests to check
 * that the embedded server answers (the embedded module must not depend on a Redis client).
 * Replies are returned as text: {@code +OK} as {@code "OK"}, bulk strings as their value, a nil
 * bulk string as {@code null}, integers as their digits, errors as {@code "-ERR ..."}, arrays
 * as {@code "[a, b]"}.
 *
 * <p>Not thread-safe: one connection, one caller.
 */
final class Resp implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  Resp(String redisUri) throws IOException {
    URI uri = URI.create(redisUri);
    socket = new Socket(uri.getHost(), uri.getPort());
    socket.setSoTimeout(10_000);
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream());
  }

  String call(String... args) throws IOException {
    StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
    return readReply();
  }

  private String readReply() throws IOException {
    int type = in.read();
    String line = readLine();
    switch (type) {
      case '+':
      case ':':
        return line;
      case '-':
        return "-" + line;
      case '$':
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] value = in.readNBytes(length);
        readLine();
        return new String(value, StandardCharsets.UTF_8);
      case '*':
        List<String> elements = new ArrayList<>();
        for (int i = Integer.parseInt(line); i > 0; i--) {
          elements.add(readReply());
        }
        return elements.toString();
      default:
        throw new IOException("unexpected RESP reply type " + type + ": " + line);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\r') {
      if (b < 0) {
        throw new IOException("connection closed by Redis");
      }
      line.write(b);
    }
    if (in.read() != '\n') {
      throw new IOException("malformed RESP line: " + line);
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
