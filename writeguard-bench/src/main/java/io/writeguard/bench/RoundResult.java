package io.writeguard.bench;

/**
 * One contender's figures in one round, after its final document was checked.
 *
 * @param lost acknowledged operations whose change is not in the final document
 * @param writtenNotAcked operations in the final document that their client saw fail (a write
 *     that landed although the call threw); not a loss, shown for honesty
 * @param retries attempts beyond the first, over the acknowledged operations
 * @param allocBytesPerCall bytes the client threads allocated, over every call they made
 *     (acknowledged, gave up or failed); -1 when the JVM cannot tell
 * @param cpuUsPerCall the client threads' CPU time in microseconds over every call; -1 likewise
 * @param mongoCommandsPerCall commands the MongoDB clients sent, over every call; -1 when not
 *     counted ({@code --count-commands})
 */
record RoundResult(String contender, int round, long acked, long lost, long writtenNotAcked,
    long exhausted, long errors, long retries, double throughputOpsS, double p50Ms, double p99Ms,
    double maxMs, double elapsedS, String errorSample, double allocBytesPerCall,
    double cpuUsPerCall, double mongoCommandsPerCall) {

  static RoundResult of(String contender, int round, RoundPart part, long lost,
      long writtenNotAcked) {
    long acked = part.ackedCount();
    double seconds = part.elapsedNanos / 1e9;
    return new RoundResult(contender, round, acked, lost, writtenNotAcked, part.exhausted,
        part.errors, part.attempts - acked, seconds > 0 ? acked / seconds : 0,
        ms(part.latencyUs.getValueAtPercentile(50)), ms(part.latencyUs.getValueAtPercentile(99)),
        ms(part.latencyUs.getMaxValue()), seconds, part.errorSample,
        perCall(part.allocatedBytes, part.calls()), perCall(part.cpuNanos, part.calls()) / 1000,
        perCall(part.mongoCommands, part.calls()));
  }

  private static double perCall(long total, long calls) {
    return total < 0 || calls == 0 ? -1 : (double) total / calls;
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }
}
