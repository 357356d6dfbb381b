package io.writeguard.tx;

import com.mongodb.MongoInterruptedException;
import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * A test double for the runner's sessions: commits fail with the exceptions queued in
 * {@link #commitFailures}, an abort from an interrupted thread is refused as the driver refuses
 * it, and every call is recorded in {@link #log}.
 */
final class ScriptedSessions implements SessionSource {
  final Deque<RuntimeException> commitFailures = new ArrayDeque<>();
  final List<String> log = new ArrayList<>();
  RuntimeException startFailure;
  RuntimeException openFailure;
  RuntimeException supportCheckFailure;
  String unsupportedReason;
  int opened;

  @Override
  public Optional<String> whyTransactionsUnsupported() {
    if (supportCheckFailure != null) {
      throw supportCheckFailure;
    }
    return Optional.ofNullable(unsupportedReason);
  }

  @Override
  public TxSession open() {
    if (openFailure != null) {
      throw openFailure;
    }
    opened++;
    return new TxSession() {
      boolean active;

      @Override
      public void startTransaction(TransactionOptions options) {
        if (startFailure != null) {
          throw startFailure;
        }
        log.add("start");
        active = true;
      }

      @Override
      public ClientSession clientSession() {
        return null;
      }

      @Override
      public boolean hasActiveTransaction() {
        return active;
      }

      @Override
      public void commitTransaction() {
        log.add("commit");
        RuntimeException failure = commitFailures.poll();
        if (failure != null) {
          throw failure;
        }
        active = false;
      }

      @Override
      public void abortTransaction() {
        if (Thread.currentThread().isInterrupted()) { // as the driver: no call leaves the thread
          log.add("abort refused");
          throw new MongoInterruptedException("Interrupted waiting for lock", null);
        }
        log.add("abort");
        active = false;
      }

      @Override
      public void close() {
        log.add("close");
      }
    };
  }
}
