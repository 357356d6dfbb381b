package io.writeguard.testing;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy that can stop forwarding: after {@link #stall()} connections stay open, new ones
 * are accepted, and nothing is answered or closed, as with a paused server (SIGSTOP) or a
 * partition. Bytes read while stalled are held, not dropped. One thread per direction per
 * connection; fine for a test's few connections.
 */
public final class StallingProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final ServerSocket listener;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean stalled;
  private volatile boolean closed;
  private volatile long delayNanos;

  public StallingProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    try {
      listener = new ServerSocket();
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon(this::acceptLoop, "stalling-proxy-accept");
  }

  /** A proxy in front of the test MongoDB ({@link TestMongo#uri()}). */
  public static StallingProxy forTestMongo() {
    String host = new ConnectionString(TestMongo.uri()).getHosts().get(0);
    int colon = host.lastIndexOf(':');
    return new StallingProxy(host.substring(0, colon), Integer.parseInt(host.substring(colon + 1)));
  }

  /** A client of the test MongoDB through this proxy, bounded as the shared one; close it. */
  public MongoClient mongoClient() {
    return TestMongo.newClient(b -> b.applyConnectionString(new ConnectionString(
        "mongodb://127.0.0.1:" + port() + "/?directConnection=true&retryWrites=true")));
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** From now on nothing is forwarded in either direction. */
  public void stall() {
    stalled = true;
  }

  /**
   * Holds every chunk {@code oneWay} before forwarding it, in both directions: a server that
   * far away (a round trip of twice that, at least).
   */
  public StallingProxy delay(java.time.Duration oneWay) {
    delayNanos = oneWay.toNanos();
    return this;
  }

  /** Forwards again, held bytes first. */
  public void resume() {
    stalled = false;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(targetHost, targetPort);
        sockets.add(client);
        sockets.add(server);
        daemon(() -> pump(client, server), "stalling-proxy-up");
        daemon(() -> pump(server, client), "stalling-proxy-down");
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        while (stalled && !closed) {
          Thread.sleep(5);
        }
        long delay = delayNanos;
        if (delay > 0) {
          java.util.concurrent.TimeUnit.NANOSECONDS.sleep(delay);
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the other side closed, or the proxy did
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing
    }
  }

  private static void daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }
}
