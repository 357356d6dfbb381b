package io.writeguard.embedded;

import java.nio.file.Path;

/** Run in a child JVM by {@link DurableEmbeddedMongoTest}: serves a data directory until killed. */
public final class DurableMongoChild {
  private DurableMongoChild() {}

  public static void main(String[] args) throws InterruptedException {
    EmbeddedMongo mongo = EmbeddedMongo.start(0, Path.of(args[0]));
    System.out.println(mongo.port());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until the test kills the process
  }
}
