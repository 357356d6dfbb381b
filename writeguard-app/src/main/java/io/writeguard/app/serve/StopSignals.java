package io.writeguard.app.serve;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT as a stop request: the handlers only count a latch down, and the main
 * thread does the graceful stop and returns exit status 0 (a JVM ended by the signal itself
 * would exit with 143 or 130, which scripts read as a failure). Same approach as
 * {@code writeguard mongo}; uses {@code sun.misc.Signal}, which JEP 260 keeps open for this.
 */
final class StopSignals {
  private StopSignals() {}

  /** Installs TERM and INT handlers that count {@code stop} down. */
  static void install(CountDownLatch stop) {
    for (String name : List.of("TERM", "INT")) {
      try {
        Signal.handle(new Signal(name), signal -> stop.countDown());
      } catch (IllegalArgumentException e) {
        // -Xrs, or the signal is ignored: the caller's shutdown hook still stops the server.
      }
    }
  }
}
