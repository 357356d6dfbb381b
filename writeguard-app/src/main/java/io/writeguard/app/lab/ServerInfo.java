package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The server a lab run measured. {@code kind} is {@code embedded} (the in-JVM server) or
 * {@code external}. Immutable.
 */
public record ServerInfo(@JsonProperty("kind") String kind, @JsonProperty("version") String version) {
  public static final String EMBEDDED = "embedded";
  public static final String EXTERNAL = "external";

  public ServerInfo {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(version, "version");
  }
}
