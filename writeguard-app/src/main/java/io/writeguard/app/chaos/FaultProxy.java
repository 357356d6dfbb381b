package io.writeguard.app.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of one server (MongoDB or Redis) that injects network faults:
 *
 * <ul>
 *   <li>{@link #resetAll()}: every open connection is closed with a reset (RST, linger 0);
 *   <li>{@link #refuse}: the listening socket is closed, so new connections are refused by the
 *       kernel; it is bound again on the same port afterwards;
 *   <li>{@link #blackHole}: connections stay open and new ones are accepted, but nothing is
 *       forwarded in either direction and nothing is closed, the way a paused or partitioned
 *       server looks. Bytes are not dropped: the pumps stop reading, so when the hole ends the
 *       queued bytes flow on, as TCP does after a partition heals.
 * </ul>
 *
 * <p>Why blocking pumps with one thread per direction: the chaos run has tens of connections,
 * and a pump that simply does not read is the most faithful black hole (TCP flow control
 * stalls the sender, no byte is lost or reordered). Thread-safe; {@link #close()} ends it.
 */
public final class FaultProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object holeLock = new Object();
  private volatile ServerSocket listener;
  private volatile long holeUntilNanos;
  private volatile boolean closed;

  /** Listens on a free loopback port and forwards to {@code targetHost:targetPort}. */
  public FaultProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    this.listener = socket;
    this.port = socket.getLocalPort();
    startAcceptLoop(socket);
  }

  public int port() {
    return port;
  }

  /** Closes every open connection with a reset; new connections are accepted as usual. */
  public void resetAll() {
    for (Socket s : sockets) {
      closeWithReset(s);
    }
  }

  /** Refuses new connections for {@code millis}, then listens on the same port again. */
  public void refuse(long millis) throws InterruptedException {
    ServerSocket old = listener;
    closeQuietly(old);
    Thread.sleep(millis);
    IOException last = null;
    for (int attempt = 0; attempt < 50 && !closed; attempt++) {
      try {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 100);
        listener = socket;
        startAcceptLoop(socket);
        return;
      } catch (IOException e) {
        last = e; // the port is in TIME_WAIT or briefly taken: try again
        Thread.sleep(100);
      }
    }
    if (!closed) {
      throw new IllegalStateException("cannot listen on port " + port + " again after refusing",
          last);
    }
  }

  /** Forwards nothing for {@code millis} (connections stay open, nothing is closed). */
  public void blackHole(long millis) {
    holeUntilNanos = System.nanoTime() + millis * 1_000_000L;
  }

  private boolean inHole() {
    return System.nanoTime() - holeUntilNanos < 0;
  }

  /** Blocks while the black hole lasts. */
  private void awaitNoHole() throws InterruptedException {
    while (inHole() && !closed) {
      synchronized (holeLock) {
        holeLock.wait(20);
      }
    }
  }

  private void startAcceptLoop(ServerSocket socket) {
    Thread accept = new Thread(() -> acceptLoop(socket), "fault-proxy-accept-" + port);
    accept.setDaemon(true);
    accept.start();
  }

  private void acceptLoop(ServerSocket socket) {
    while (!closed && !socket.isClosed()) {
      Socket client;
      try {
        client = socket.accept();
      } catch (IOException e) {
        return; // refused or closed
      }
      sockets.add(client);
      Thread connect = new Thread(() -> connect(client), "fault-proxy-connect-" + port);
      connect.setDaemon(true);
      connect.start();
    }
  }

  private void connect(Socket client) {
    try {
      awaitNoHole(); // a connection made in the hole is held open, not answered
      Socket server = new Socket(targetHost, targetPort);
      sockets.add(server);
      pump(client, server);
      pump(server, client);
    } catch (IOException e) {
      closeWithReset(client); // the server is down: the client sees a reset
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pump(Socket from, Socket to) throws IOException {
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try {
        while (true) {
          awaitNoHole();
          int n = in.read(buffer);
          if (n < 0) {
            break;
          }
          awaitNoHole(); // bytes read just before the hole wait for it to end
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // a closed or reset socket ends the pump
      }
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }, "fault-proxy-pump-" + port);
    t.setDaemon(true);
    t.start();
  }

  private static void closeWithReset(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (SocketException e) {
      // already closed
    }
    closeQuietly(s);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    resetAll();
  }
}
