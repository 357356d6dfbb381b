package io.writeguard.embedded;

import de.bwaldvogel.mongo.MongoVersion;
import java.util.List;

/**
 * The server version the embedded MongoDB announces: 5.0.0 with wire version 13, the pair a real
 * MongoDB 5.0 reports.
 *
 * <p>Why it exists: mongo-java-server 1.47.0's own {@code ServerVersion.MONGO_5_0} (its default)
 * says "5.0.0" in {@code buildInfo} but wire version 8 in {@code hello}, which is MongoDB 4.2's.
 * Current clients (pymongo 4.18 needs at least 9, MongoDB 4.4) refuse a server that old. The
 * wire version only tells a client which commands and options it may send; it claims no
 * feature the server lacks: sessions, and so transactions and retryable writes, stay unsupported
 * because the server's {@code hello} carries no {@code logicalSessionTimeoutMinutes} (see
 * docs/embedded.md for what changes for the Java driver).
 *
 * <p>Immutable and thread-safe.
 */
enum ReportedVersion implements MongoVersion {
  MONGO_5_0;

  /** Wire version of MongoDB 5.0 (the Java driver's {@code FIVE_DOT_ZERO_WIRE_VERSION}). */
  static final int WIRE_VERSION = 13;

  @Override
  public List<Integer> getVersionArray() {
    return List.of(5, 0, 0);
  }

  @Override
  public int getWireVersion() {
    return WIRE_VERSION;
  }
}
