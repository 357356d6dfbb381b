package io.writeguard.tx;

import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;

/**
 * The few session operations the runner uses, so its retry decisions can be unit-tested without
 * a replica set. Not API.
 */
interface TxSession extends AutoCloseable {
  void startTransaction(TransactionOptions options);

  /** The driver session handed to the body ({@code null} in unit tests that don't use it). */
  ClientSession clientSession();

  boolean hasActiveTransaction();

  void commitTransaction();

  void abortTransaction();

  @Override
  void close();
}
