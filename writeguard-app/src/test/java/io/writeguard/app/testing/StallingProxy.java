package io.writeguard.app.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a server that can be made to stall the way a paused (SIGSTOP) server
 * does: after {@link #stall()} it keeps every connection open and accepts new ones, but
 * forwards nothing in either direction, so clients wait for replies that never come and see
 * no error on the socket. For tests of bounded waits. Thread-safe; close it after the test.
 */
public final class StallingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean stalled;
  private volatile boolean closed;

  public StallingProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "stalling-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** From now on nothing is forwarded; connections stay open. */
  public void stall() {
    stalled = true;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        if (stalled) {
          pump(client.getInputStream(), null, "stalled-in");
          continue;
        }
        Socket server = new Socket(targetHost, targetPort);
        sockets.add(server);
        pump(client.getInputStream(), server.getOutputStream(), "to-server");
        pump(server.getInputStream(), client.getOutputStream(), "to-client");
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  /** Copies {@code in} to {@code out} until stalled; then reads and drops (out null: drops). */
  private void pump(InputStream in, OutputStream out, String name) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (out != null && !stalled) {
            out.write(buffer, 0, n);
            out.flush();
          }
        }
      } catch (IOException e) {
        // a closed socket ends the pump
      }
    }, "stalling-proxy-" + name);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
