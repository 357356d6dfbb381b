package io.writeguard.tx;

import io.writeguard.internal.Deadline;
import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.connection.ClusterDescription;
import com.mongodb.connection.ClusterType;
import com.mongodb.connection.ServerDescription;
import java.util.Optional;
import org.bson.Document;

/**
 * Sessions from a real {@link MongoClient}. Transaction support is read from the driver's own
 * view of the server's {@code hello} reply (cluster type, {@code setName}, session support),
 * after a {@code ping} so the driver has connected. The answer is cached: a deployment does not
 * turn from standalone into a replica set under a running client. Thread-safe.
 */
final class DriverSessionSource implements SessionSource {
  private static final int WIRE_VERSION_4_0 = 7;
  private static final int WIRE_VERSION_4_2 = 8;

  private final MongoClient client;
  private volatile Optional<String> unsupported;

  DriverSessionSource(MongoClient client) {
    this.client = client;
  }

  @Override
  public Optional<String> whyTransactionsUnsupported() {
    Optional<String> known = unsupported;
    if (known == null) {
      known = inspect();
      unsupported = known;
    }
    return known;
  }

  private Optional<String> inspect() {
    ClusterDescription cluster = client.getClusterDescription();
    if (cluster.getType() == ClusterType.UNKNOWN) {
      Deadline.bounded(client.getDatabase("admin")).runCommand(new Document("ping", 1));
      cluster = client.getClusterDescription();
    }
    String servers = cluster.getServerDescriptions().stream()
        .map(s -> s.getAddress() + " (" + s.getType() + ")").toList().toString();
    switch (cluster.getType()) {
      case REPLICA_SET, SHARDED, LOAD_BALANCED:
        break;
      default:
        return Optional.of("the server " + servers + " is a " + cluster.getType()
            + " deployment (its hello reply has no setName and it is not a mongos): MongoDB"
            + " runs multi-document transactions only on a replica set or sharded cluster");
    }
    if (cluster.getType() != ClusterType.LOAD_BALANCED
        && cluster.getLogicalSessionTimeoutMinutes() == null) {
      return Optional.of("the server " + servers + " does not support sessions");
    }
    int needed = cluster.getType() == ClusterType.SHARDED ? WIRE_VERSION_4_2 : WIRE_VERSION_4_0;
    for (ServerDescription server : cluster.getServerDescriptions()) {
      if (server.isOk() && server.getMaxWireVersion() < needed) {
        return Optional.of("the server " + server.getAddress() + " has wire version "
            + server.getMaxWireVersion() + "; transactions need MongoDB "
            + (needed == WIRE_VERSION_4_2 ? "4.2" : "4.0") + " or later");
      }
    }
    return Optional.empty();
  }

  @Override
  public TxSession open() {
    ClientSession session = client.startSession();
    return new TxSession() {
      @Override
      public void startTransaction(TransactionOptions options) {
        session.startTransaction(options);
      }

      @Override
      public ClientSession clientSession() {
        return session;
      }

      @Override
      public boolean hasActiveTransaction() {
        return session.hasActiveTransaction();
      }

      @Override
      public void commitTransaction() {
        session.commitTransaction();
      }

      @Override
      public void abortTransaction() {
        session.abortTransaction();
      }

      @Override
      public void close() {
        session.close();
      }
    };
  }
}
