package io.writeguard.version;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What {@link VersionAuditor#fix()} found and did: the {@link AuditReport} of the documents it
 * read, and per kind how many it repaired, how many it left alone because they changed between
 * its read and its write, and how many the server matched but would not convert. Immutable and
 * thread-safe.
 */
public final class FixReport {
  private final AuditReport found;
  private final Map<VersionProblem, Long> fixed;
  private final Map<VersionProblem, Long> changed;
  private final Map<VersionProblem, Long> notApplied;

  FixReport(AuditReport found, Map<VersionProblem, Long> fixed, Map<VersionProblem, Long> changed,
      Map<VersionProblem, Long> notApplied) {
    this.found = found;
    this.fixed = Collections.unmodifiableMap(complete(fixed));
    this.changed = Collections.unmodifiableMap(complete(changed));
    this.notApplied = Collections.unmodifiableMap(complete(notApplied));
  }

  private static Map<VersionProblem, Long> complete(Map<VersionProblem, Long> in) {
    EnumMap<VersionProblem, Long> out = new EnumMap<>(VersionProblem.class);
    for (VersionProblem p : VersionProblem.values()) {
      out.put(p, in.getOrDefault(p, 0L));
    }
    return out;
  }

  /** The problems as read by the fix pass, before it wrote anything. */
  public AuditReport found() {
    return found;
  }

  /** Documents of this kind repaired. */
  public long fixed(VersionProblem problem) {
    return fixed.get(problem);
  }

  /** Documents of this kind that changed after the read and were left alone. */
  public long changedConcurrently(VersionProblem problem) {
    return changed.get(problem);
  }

  /** Documents of this kind the server matched but did not change (see {@link FixOutcome}). */
  public long notAppliedByServer(VersionProblem problem) {
    return notApplied.get(problem);
  }

  /** All documents repaired. */
  public long fixed() {
    return fixed.values().stream().mapToLong(Long::longValue).sum();
  }

  /** All documents left alone because they changed concurrently. */
  public long changedConcurrently() {
    return changed.values().stream().mapToLong(Long::longValue).sum();
  }

  /** All documents the server matched but did not change. */
  public long notAppliedByServer() {
    return notApplied.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Documents whose problem needs a person (nothing written to them). */
  public long needsPerson() {
    return found.needsPerson();
  }

  @Override
  public String toString() {
    return "FixReport{" + found.namespace() + ": found=" + found.problems() + ", fixed=" + fixed()
        + ", changedConcurrently=" + changedConcurrently() + ", notAppliedByServer="
        + notAppliedByServer() + ", needsPerson=" + needsPerson() + "}";
  }
}
