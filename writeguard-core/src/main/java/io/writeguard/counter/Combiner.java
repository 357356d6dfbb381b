package io.writeguard.counter;

/** Takes a decrement that the randomly chosen shard could not cover. Not API. */
interface Combiner {
  DecrementResult combine(String counterId, long amount, int shardAlreadyTried,
      ChangeRecorder recorder);
}
