package io.writeguard.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each fault of the proxy, against an echo server. */
@Timeout(60)
class FaultProxyTest {
  private ServerSocket echo;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      while (!echo.isClosed()) {
        try {
          Socket s = echo.accept();
          Thread pump = new Thread(() -> {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
              in.transferTo(out);
            } catch (IOException e) {
              // the test closed it
            }
          });
          pump.setDaemon(true);
          pump.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    proxy = new FaultProxy("127.0.0.1", echo.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(20_000);
    return s;
  }

  private static int roundTrip(Socket s, int b) throws IOException {
    s.getOutputStream().write(b);
    s.getOutputStream().flush();
    return s.getInputStream().read();
  }

  @Test
  void forwardsBothWays() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 7)).isEqualTo(7);
    }
  }

  @Test
  void resetClosesEveryOpenConnection() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 1)).isEqualTo(1);
      proxy.resetAll();
      assertThatThrownBy(() -> {
        // a reset shows as an exception or, once the reset was read, an end of stream
        if (roundTrip(s, 2) < 0) {
          throw new IOException("end of stream");
        }
      }).isInstanceOf(IOException.class);
    }
  }

  @Test
  void refusalRefusesNewConnectionsThenListensAgainOnTheSamePort() throws Exception {
    CompletableFuture<Void> refusing = CompletableFuture.runAsync(() -> {
      try {
        proxy.refuse(1500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    Thread.sleep(300); // the listener is closed at once; 1.2 s of refusal remain
    assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
    refusing.get(30, TimeUnit.SECONDS);
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 3)).isEqualTo(3);
    }
  }

  /** The hole neither answers nor closes; the bytes sent into it arrive after it ends. */
  @Test
  void blackHoleForwardsNothingClosesNothingAndLosesNothing() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, 4)).isEqualTo(4);
      proxy.blackHole(1500);
      s.setSoTimeout(500);
      s.getOutputStream().write(5);
      s.getOutputStream().flush();
      assertThatThrownBy(() -> s.getInputStream().read())
          .as("no answer and no reset while the hole lasts")
          .isInstanceOf(SocketTimeoutException.class);
      s.setSoTimeout(20_000);
      assertThat(s.getInputStream().read()).as("the byte sent into the hole").isEqualTo(5);
    }
  }

  @Test
  void aConnectionMadeInTheHoleIsHeldAndServedAfterIt() throws IOException {
    proxy.blackHole(1500);
    try (Socket s = connect()) {
      s.setSoTimeout(500);
      s.getOutputStream().write(6);
      s.getOutputStream().flush();
      assertThatThrownBy(() -> s.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      s.setSoTimeout(20_000);
      assertThat(s.getInputStream().read()).isEqualTo(6);
    }
  }
}
