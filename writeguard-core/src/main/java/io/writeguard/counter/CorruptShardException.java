package io.writeguard.counter;

import io.writeguard.WriteGuardException;

/**
 * A shard holds a value that is not an integer within int64 (a string, a double, a decimal with
 * a fraction or past int64, null, any other type): someone else's code wrote the field. Read as
 * a number it would make the total wrong without a word, so nothing is read or written with it;
 * a person must correct the shard. Immutable and thread-safe.
 */
public class CorruptShardException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String counterId;
  private final int shard;
  private final String value;

  public CorruptShardException(String counterId, int shard, String where, String value) {
    super("counter '" + counterId + "': shard " + shard + " (" + where + ") holds " + value
        + ", which is not an integer within int64; correct it by hand (a missing shard counts"
        + " as 0)");
    this.counterId = counterId;
    this.shard = shard;
    this.value = value;
  }

  public String counterId() {
    return counterId;
  }

  public int shard() {
    return shard;
  }

  /** The value found, as text ({@code "100"} with quotes for a string). */
  public String value() {
    return value;
  }
}
