package io.writeguard.app.cli;

import picocli.CommandLine.Option;

/** {@code --redis-uri}, defaulting to {@code REDIS_URI}; absent means an embedded Redis. */
public final class RedisOptions {

  @Option(
      names = "--redis-uri",
      paramLabel = "URI",
      defaultValue = "${env:REDIS_URI}",
      description = "Redis connection string for Redis locks (default: $REDIS_URI, else an"
          + " embedded Redis, started only when needed)")
  String redisUri;

  /** The URI given, or null for the embedded server. */
  public String uri() {
    return redisUri == null || redisUri.isBlank() ? null : redisUri;
  }

  /**
   * Checks the URI's syntax without connecting.
   *
   * @throws UsageException naming a malformed URI
   */
  public void check() {
    if (uri() != null) {
      RedisTarget.parse(uri());
    }
  }

  public RedisTarget open() {
    return RedisTarget.open(uri());
  }
}
