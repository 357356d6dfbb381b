package io.writeguard.app.cli;

import picocli.CommandLine.Option;

/** {@code --mongo-uri}, defaulting to {@code MONGODB_URI}; absent means the embedded server. */
public final class MongoOptions {

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

  public MongoTarget open(int maxPoolSize) {
    return MongoTarget.open(uri(), maxPoolSize);
  }
}
