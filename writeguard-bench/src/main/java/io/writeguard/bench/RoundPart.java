package io.writeguard.bench;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one process's clients did in one round: which operations were acknowledged (by id),
 * their latencies (microseconds), how many attempts the acknowledged ones took, how many gave up
 * within their budget or failed. Parts of one round are merged; a child process sends its part
 * to the parent as one line of JSON ({@link #toJson()}, {@link #fromJson}). Not thread-safe.
 */
final class RoundPart {
  static final long MAX_LATENCY_US = 600_000_000L;

  final BitSet acked;
  final Histogram latencyUs;
  long attempts;
  long exhausted;
  long errors;
  String errorSample;
  long elapsedNanos;
  /** Bytes allocated by the client threads during the round; -1 when the JVM cannot tell. */
  long allocatedBytes;
  /** CPU time of the client threads during the round; -1 when the JVM cannot tell. */
  long cpuNanos;
  /** Commands this process's MongoDB client sent during the round; -1 when not counted. */
  long mongoCommands;

  RoundPart() {
    this(new BitSet(), new Histogram(MAX_LATENCY_US, 3));
  }

  private RoundPart(BitSet acked, Histogram latencyUs) {
    this.acked = acked;
    this.latencyUs = latencyUs;
  }

  long ackedCount() {
    return acked.cardinality();
  }

  /** Every call a client made: acknowledged, gave up, or failed. */
  long calls() {
    return ackedCount() + exhausted + errors;
  }

  /** Adds {@code other} into this one; the round lasted as long as its slowest part. */
  void merge(RoundPart other) {
    acked.or(other.acked);
    latencyUs.add(other.latencyUs);
    attempts += other.attempts;
    exhausted += other.exhausted;
    errors += other.errors;
    errorSample = errorSample != null ? errorSample : other.errorSample;
    elapsedNanos = Math.max(elapsedNanos, other.elapsedNanos);
    allocatedBytes = sumOrUnknown(allocatedBytes, other.allocatedBytes);
    cpuNanos = sumOrUnknown(cpuNanos, other.cpuNanos);
    mongoCommands = sumOrUnknown(mongoCommands, other.mongoCommands);
  }

  private static long sumOrUnknown(long a, long b) {
    return a < 0 || b < 0 ? -1 : a + b;
  }

  Map<String, Object> toJson() {
    ByteBuffer buffer = ByteBuffer.allocate(latencyUs.getNeededByteBufferCapacity());
    int length = latencyUs.encodeIntoCompressedByteBuffer(buffer);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("acked", Base64.getEncoder().encodeToString(acked.toByteArray()));
    json.put("latency_us", Base64.getEncoder().encodeToString(
        java.util.Arrays.copyOf(buffer.array(), length)));
    json.put("attempts", attempts);
    json.put("exhausted", exhausted);
    json.put("errors", errors);
    json.put("error_sample", errorSample);
    json.put("elapsed_nanos", elapsedNanos);
    json.put("allocated_bytes", allocatedBytes);
    json.put("cpu_nanos", cpuNanos);
    json.put("mongo_commands", mongoCommands);
    return json;
  }

  static RoundPart fromJson(Map<String, Object> json) {
    Histogram histogram;
    try {
      histogram = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode((String) json.get("latency_us"))), 0);
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("a worker sent an unreadable latency histogram", e);
    }
    RoundPart part = new RoundPart(
        BitSet.valueOf(Base64.getDecoder().decode((String) json.get("acked"))), histogram);
    part.attempts = ((Number) json.get("attempts")).longValue();
    part.exhausted = ((Number) json.get("exhausted")).longValue();
    part.errors = ((Number) json.get("errors")).longValue();
    part.errorSample = (String) json.get("error_sample");
    part.elapsedNanos = ((Number) json.get("elapsed_nanos")).longValue();
    part.allocatedBytes = ((Number) json.get("allocated_bytes")).longValue();
    part.cpuNanos = ((Number) json.get("cpu_nanos")).longValue();
    part.mongoCommands = ((Number) json.get("mongo_commands")).longValue();
    return part;
  }
}
