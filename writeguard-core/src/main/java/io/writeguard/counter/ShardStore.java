package io.writeguard.counter;

/**
 * Reads and writes the shards of one layout. Every write keeps each shard >= 0 and carries
 * what its {@link ChangeRecorder} adds. Not API.
 */
interface ShardStore {

  /** Adds {@code amount} (> 0) to one shard, creating it if missing. */
  void add(String counterId, int shard, long amount, ChangeRecorder recorder);

  /** Takes {@code amount} from one shard only if it holds at least that much. */
  boolean tryTake(String counterId, int shard, long amount, ChangeRecorder recorder);

  /** Every shard's value, missing shards as 0. Not a snapshot across documents. */
  long[] read(String counterId);

  /** One shard's value, 0 if missing. */
  long readOne(String counterId, int shard);
}
