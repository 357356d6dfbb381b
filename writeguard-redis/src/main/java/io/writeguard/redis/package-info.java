/** Redis lease lock backend for WriteGuard's lock contract. */
package io.writeguard.redis;
