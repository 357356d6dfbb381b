package io.writeguard.app.chaos;

import io.writeguard.app.chaos.Processes.ChildJvm;
import io.writeguard.app.chaos.Testbed.Injected;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code pause}: a lock holder frozen past its lease. The holder JVM ({@link ChaosHolder})
 * stops between read and write of one operation per strategy, holding the locks; it is paused
 * with SIGSTOP for twice the lease plus a second, then resumed, and its late writes must be
 * fenced off. Recovery: the others proceed within one lease (+ slack) of the pause. Stateless.
 */
final class PauseFault {
  static final Fault PAUSE = new Fault("pause",
      bed -> bed.inProcess("pause", (backends, history, database) ->
          pause(bed, history, database)));

  private PauseFault() {}

  private static Injected pause(Testbed bed, History history, String database) throws Exception {
    ChaosSettings settings = bed.settings();
    List<String> violations = new ArrayList<>();
    try (ChildJvm holder = ChildJvm.start("holder", bed.dir(), ChaosHolder.class.getName(),
        List.of(bed.proxiedMongoUri(), bed.proxiedRedisUri(), database,
            String.join(",", bed.strategies()),
            Long.toString(settings.mongoTimeout().toMillis())))) {
      List<String> other = new ArrayList<>();
      holder.await(l -> l.equals("HOLDING"), ChildJvm.READY_WITHIN, other);
      other.stream().filter(l -> l.startsWith("NOT-HOLDING")).forEach(violations::add);
      long pausedAt = System.currentTimeMillis();
      Processes.signal(holder.pid(), "STOP");
      Thread.sleep(settings.lease().multipliedBy(2).plusSeconds(1).toMillis());
      Processes.signal(holder.pid(), "CONT");
      Writer stdin = new OutputStreamWriter(holder.process().getOutputStream(),
          StandardCharsets.UTF_8);
      stdin.write("GO\n");
      stdin.flush();
      List<String> lines = new ArrayList<>();
      holder.await(l -> l.equals("DONE"), ChildJvm.READY_WITHIN, lines);
      lines.stream().map(Op::parse).filter(o -> o != null).forEach(history);
      return new Injected(pausedAt, settings.lease().plus(ChaosSettings.SLACK), violations);
    }
  }
}
