package io.writeguard.app.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --mongo-uri}, defaulting to {@code MONGODB_URI}; absent means the embedded server.
 * {@code --mongo-timeout} bounds every wait on the server (see {@link MongoTarget}).
 */
public final class MongoOptions {

  @Option(
      names = "--mongo-timeout",
      paramLabel = "TIME",
      defaultValue = "5s",
      description = "Longest wait for one MongoDB reply, connection or pooled connection; a"
          + " stalled server fails an operation after at most about twice this (default:"
          + " ${DEFAULT-VALUE}; socketTimeoutMS in the URI wins for replies)")
  String mongoTimeout = "5s";

  @Option(
      names = "--mongo-uri",
      paramLabel = "URI",
      defaultValue = "${env:MONGODB_URI}",
      description = "MongoDB connection string (default: $MONGODB_URI, else an embedded server)")
  String mongoUri;

  /** The URI given, or null for the embedded server. */
  public String uri() {
    return mongoUri == null || mongoUri.isBlank() ? null : mongoUri;
  }

  /** The {@code --mongo-timeout} given. */
  public Duration timeout() {
    return Durations.parse("--mongo-timeout", mongoTimeout, false);
  }

  public MongoTarget open(int maxPoolSize) {
    return MongoTarget.open(uri(), maxPoolSize, timeout());
  }
}
