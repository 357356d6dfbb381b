package io.writeguard.version;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one pass over a collection found: how many documents were read, how many had each
 * {@link VersionProblem}, and the first few findings of each kind (in {@code _id} order).
 *
 * <p>Counts come from a single pass that is not a snapshot: documents written during the pass
 * are seen in whichever state the read found them. Immutable and thread-safe.
 */
public final class AuditReport {
  private final String namespace;
  private final String versionField;
  private final long scanned;
  private final Map<VersionProblem, Long> counts;
  private final Map<VersionProblem, List<VersionFinding>> samples;
  private final int sampleLimit;

  private AuditReport(Tally tally) {
    this.namespace = tally.namespace;
    this.versionField = tally.versionField;
    this.scanned = tally.scanned;
    this.sampleLimit = tally.sampleLimit;
    EnumMap<VersionProblem, Long> c = new EnumMap<>(VersionProblem.class);
    EnumMap<VersionProblem, List<VersionFinding>> s = new EnumMap<>(VersionProblem.class);
    for (VersionProblem p : VersionProblem.values()) {
      c.put(p, tally.counts.getOrDefault(p, 0L));
      s.put(p, List.copyOf(tally.samples.getOrDefault(p, List.of())));
    }
    this.counts = Collections.unmodifiableMap(c);
    this.samples = Collections.unmodifiableMap(s);
  }

  /** {@code database.collection}. */
  public String namespace() {
    return namespace;
  }

  public String versionField() {
    return versionField;
  }

  /** Documents read. */
  public long scanned() {
    return scanned;
  }

  /** Documents with this problem. */
  public long count(VersionProblem problem) {
    return counts.get(problem);
  }

  /** Every kind, in declaration order, with its count (zero included); unmodifiable. */
  public Map<VersionProblem, Long> counts() {
    return counts;
  }

  /** Documents with any problem. */
  public long problems() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Documents whose problem {@link VersionAuditor#fix()} can repair. */
  public long fixable() {
    return sum(true);
  }

  /** Documents whose problem needs a person. */
  public long needsPerson() {
    return sum(false);
  }

  /** True when every document read had a non-negative int64 version. */
  public boolean isClean() {
    return problems() == 0;
  }

  /** The first findings of this kind, at most {@link #sampleLimit()}, in {@code _id} order. */
  public List<VersionFinding> samples(VersionProblem problem) {
    return samples.get(problem);
  }

  public int sampleLimit() {
    return sampleLimit;
  }

  private long sum(boolean fixable) {
    return counts.entrySet().stream()
        .filter(e -> e.getKey().fixable() == fixable)
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("AuditReport{").append(namespace).append('.')
        .append(versionField).append(": scanned=").append(scanned);
    counts.forEach((p, n) -> {
      if (n > 0) {
        b.append(", ").append(p).append('=').append(n);
      }
    });
    return b.append('}').toString();
  }

  /** Accumulates one pass. Not thread-safe: one pass, one thread. */
  static final class Tally {
    private final String namespace;
    private final String versionField;
    private final int sampleLimit;
    private final Map<VersionProblem, Long> counts = new EnumMap<>(VersionProblem.class);
    private final Map<VersionProblem, List<VersionFinding>> samples =
        new EnumMap<>(VersionProblem.class);
    private long scanned;

    Tally(String namespace, String versionField, int sampleLimit) {
      this.namespace = namespace;
      this.versionField = versionField;
      this.sampleLimit = sampleLimit;
    }

    void document() {
      scanned++;
    }

    void finding(VersionFinding f) {
      counts.merge(f.problem(), 1L, Long::sum);
      List<VersionFinding> list = samples.computeIfAbsent(f.problem(), p -> new ArrayList<>());
      if (list.size() < sampleLimit) {
        list.add(f);
      }
    }

    long scanned() {
      return scanned;
    }

    AuditReport report() {
      return new AuditReport(this);
    }
  }
}
