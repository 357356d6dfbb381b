package io.writeguard.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * The lease settings a lease-lock service runs with, as its builder resolved them (defaults
 * filled in): the same names, defaults and checks for the MongoDB and the Redis lock.
 *
 * @param lease how long a holder keeps the lock without renewing it
 * @param renewInterval how often the watchdog renews a held lease; empty without a watchdog
 * @param handoffBatch callers of one process that may hold one lease in turn
 * @param handoffSlice how long one lease may be passed from caller to caller of one process
 * @param maxKeyLength the longest key accepted
 */
public record LeaseTerms(Duration lease, Optional<Duration> renewInterval, int handoffBatch,
    Duration handoffSlice, int maxKeyLength) {}
