package io.writeguard.app.serve;

import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@code writeguard serve} listens and protects itself. Immutable; built by
 * {@link Builder}, which checks every value and names the bad one.
 *
 * <ul>
 *   <li>{@code host} (default 127.0.0.1) and {@code port} (default 8080; 0 picks a free port).
 *   <li>{@code maxBodyBytes} (default 64 KiB): a larger body is refused with 413 before it is
 *       read.
 *   <li>{@code maxUriBytes} (default 64 KiB): Jetty's request-header buffer, which bounds the
 *       URI; a longer request line gets Jetty's 414 or 431 without reaching a route. Below that,
 *       a path segment longer than 256 chars is refused by the route with 400.
 *   <li>{@code retryAfter} (default 1 s): the {@code Retry-After} of 409 and 503 answers.
 *   <li>{@code shutdownGrace} (default 10 s): how long a stop waits for requests in progress.
 *   <li>{@code requestDeadline} (default 10 s): the budget of one request; every MongoDB
 *       operation, Redis command and lock wait it makes gets the time left, so it is answered
 *       within the deadline plus the library's write grace (docs/serve.md, "Bounded waits").
 * </ul>
 */
public final class ServeConfig {
  private final String host;
  private final int port;
  private final int maxBodyBytes;
  private final int maxUriBytes;
  private final Duration retryAfter;
  private final Duration shutdownGrace;
  private final Duration requestDeadline;

  private ServeConfig(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.maxBodyBytes = b.maxBodyBytes;
    this.maxUriBytes = b.maxUriBytes;
    this.retryAfter = b.retryAfter;
    this.shutdownGrace = b.shutdownGrace;
    this.requestDeadline = b.requestDeadline;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static ServeConfig defaults() {
    return builder().build();
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  public int maxUriBytes() {
    return maxUriBytes;
  }

  public Duration retryAfter() {
    return retryAfter;
  }

  /** {@link #retryAfter()} in whole seconds, at least 1, as the header carries it. */
  public int retryAfterSeconds() {
    return (int) Math.max(1, (retryAfter.toMillis() + 999) / 1000);
  }

  public Duration shutdownGrace() {
    return shutdownGrace;
  }

  public Duration requestDeadline() {
    return requestDeadline;
  }

  @Override
  public String toString() {
    return "ServeConfig[host=" + host + ", port=" + port + ", maxBodyBytes=" + maxBodyBytes
        + ", maxUriBytes=" + maxUriBytes + ", retryAfter=" + retryAfter
        + ", shutdownGrace=" + shutdownGrace + ", requestDeadline=" + requestDeadline + "]";
  }

  /** Collects and checks the settings; not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 8080;
    private int maxBodyBytes = 64 * 1024;
    private int maxUriBytes = 64 * 1024;
    private Duration retryAfter = Duration.ofSeconds(1);
    private Duration shutdownGrace = Duration.ofSeconds(10);
    private Duration requestDeadline = Duration.ofSeconds(10);

    private Builder() {}

    public Builder host(String host) {
      this.host = Checks.notBlank("host", host);
      return this;
    }

    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    public Builder maxBodyBytes(int bytes) {
      this.maxBodyBytes = between("maxBodyBytes", bytes, 1024, 16 * 1024 * 1024);
      return this;
    }

    public Builder maxUriBytes(int bytes) {
      this.maxUriBytes = between("maxUriBytes", bytes, 4 * 1024, 1024 * 1024);
      return this;
    }

    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = Checks.positive("retryAfter", retryAfter);
      return this;
    }

    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = Checks.notNegative("shutdownGrace", grace);
      return this;
    }

    /** The budget of one request, from when a route starts it; positive, at most one hour. */
    public Builder requestDeadline(Duration deadline) {
      Checks.positive("requestDeadline", deadline);
      if (deadline.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("requestDeadline must be <= PT1H, was " + deadline);
      }
      this.requestDeadline = deadline;
      return this;
    }

    public ServeConfig build() {
      Objects.requireNonNull(host);
      return new ServeConfig(this);
    }

    private static int between(String name, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(name + " must be between " + min + " and " + max
            + ", was " + value);
      }
      return value;
    }
  }
}
