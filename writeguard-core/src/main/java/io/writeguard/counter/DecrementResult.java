package io.writeguard.counter;

/**
 * How a decrement was taken: from one shard, or by combining several. Immutable.
 *
 * @param amount the amount taken (always the amount asked for)
 * @param shardsUsed how many shards it was taken from
 * @param combined true when no single shard had enough and shards were combined
 */
public record DecrementResult(long amount, int shardsUsed, boolean combined) {}
