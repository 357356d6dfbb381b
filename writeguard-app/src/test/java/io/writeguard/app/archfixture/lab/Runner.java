package io.writeguard.app.archfixture.lab;

/** Stands for the lab's runner, which neither the API nor a scenario may use. */
public final class Runner {
  private Runner() {}

  public static int clients() {
    return 16;
  }
}
