package io.writeguard.app.lab;

import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;

/**
 * Tells a failure that means "the database is not answering" (socket errors, no server
 * selectable within the timeout) from one that concerns a single operation. The first kind
 * ends the run: going on would only time every remaining operation out.
 */
final class ServerGone {
  private ServerGone() {}

  /** True when {@code error} or one of its causes is a driver connectivity failure. */
  static boolean is(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MongoSocketException || t instanceof MongoTimeoutException) {
        return true;
      }
    }
    return false;
  }
}
