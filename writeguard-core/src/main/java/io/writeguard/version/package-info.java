/**
 * Version-field hygiene: where the version lives and what a usable one is
 * ({@link io.writeguard.version.VersionPolicy}), new documents start at an int64 0
 * ({@link io.writeguard.version.VersionedInsert}), user code never writes the version
 * ({@link io.writeguard.version.VersionGuard}), and a collection's stored versions can be
 * audited and repaired ({@code VersionAuditor}, {@code writeguard audit}).
 */
package io.writeguard.version;
