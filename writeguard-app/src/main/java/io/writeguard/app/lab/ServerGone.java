package io.writeguard.app.lab;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;

/**
 * Tells a failure that means "a backend is not answering" from one that concerns a single
 * operation. The first kind ends the run, the same way whether it happens while a strategy is
 * set up or while it is measured (exit 3, no result): going on would only time every remaining
 * operation out, and would make a result out of an outage.
 *
 * <ul>
 *   <li>MongoDB: a driver connectivity failure ({@code MongoSocketException}, read timeouts of a
 *       stalled server included, or {@code MongoTimeoutException});
 *   <li>Redis: a Lettuce {@code RedisException} other than an error the server answered with
 *       ({@code RedisCommandExecutionException}): not connected, connection lost, command
 *       timed out.
 * </ul>
 */
final class ServerGone {
  private ServerGone() {}

  /** True when {@code error} or one of its causes is a backend connectivity failure. */
  static boolean is(Throwable error) {
    return describe(error) != null;
  }

  /** "MongoDB stopped answering", "Redis stopped answering", or null for another failure. */
  static String describe(Throwable error) {
    int depth = 0;
    for (Throwable t = error; t != null && depth < 32;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof MongoSocketException || t instanceof MongoTimeoutException) {
        return "MongoDB stopped answering";
      }
      if (t instanceof RedisException && !(t instanceof RedisCommandExecutionException)) {
        return "Redis stopped answering";
      }
    }
    return null;
  }
}
