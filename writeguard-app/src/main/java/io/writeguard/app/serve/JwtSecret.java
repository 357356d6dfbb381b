package io.writeguard.app.serve;

import io.writeguard.app.cli.UsageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The HS256 secret that {@code writeguard serve} verifies tokens with and {@code writeguard
 * token} signs them with: the contents of {@code --jwt-secret-file}, else the environment
 * variable {@value #ENV}. There is no default and no generated secret, on purpose: the two
 * commands run in different processes and must agree, and a secret made up at start-up would
 * silently invalidate every token at each restart.
 *
 * <p>At least {@value #MIN_BYTES} bytes (RFC 7518 section 3.2: an HS256 key must be as long
 * as the hash). One trailing newline in a file is ignored, since editors add one. Immutable;
 * {@link #bytes()} returns a copy.
 */
public final class JwtSecret {
  /** The environment variable holding the secret. */
  public static final String ENV = "WRITEGUARD_JWT_SECRET";
  /** Shortest accepted secret, in bytes (UTF-8). */
  public static final int MIN_BYTES = 32;

  private final byte[] bytes;

  private JwtSecret(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * The secret as given.
   *
   * @throws UsageException when it is shorter than {@value #MIN_BYTES} bytes
   */
  public static JwtSecret of(byte[] secret, String source) {
    if (secret.length < MIN_BYTES) {
      throw new UsageException("the JWT secret from " + source + " must be at least " + MIN_BYTES
          + " bytes for HS256, was " + secret.length + " bytes");
    }
    return new JwtSecret(secret.clone());
  }

  /**
   * Reads the secret from {@code file} when it is not null, else from {@value #ENV} in
   * {@code env}.
   *
   * @throws UsageException naming the file or variable when the secret is missing, unreadable
   *     or too short
   */
  public static JwtSecret load(Path file, Map<String, String> env) {
    if (file != null) {
      byte[] content;
      try {
        content = Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UsageException("cannot read --jwt-secret-file '" + file + "': " + e, e);
      }
      return of(stripOneNewline(content), "--jwt-secret-file '" + file + "'");
    }
    String value = env.get(ENV);
    if (value == null || value.isEmpty()) {
      throw new UsageException("no JWT secret: set " + ENV + " or pass --jwt-secret-file"
          + " (the same secret for 'writeguard serve' and 'writeguard token')");
    }
    return of(value.getBytes(StandardCharsets.UTF_8), "$" + ENV);
  }

  private static byte[] stripOneNewline(byte[] content) {
    int end = content.length;
    if (end > 0 && content[end - 1] == '\n') {
      end--;
      if (end > 0 && content[end - 1] == '\r') {
        end--;
      }
    }
    return Arrays.copyOf(content, end);
  }

  /** A copy of the secret's bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  @Override
  public String toString() {
    return "JwtSecret[" + bytes.length + " bytes]"; // never the secret itself
  }
}
