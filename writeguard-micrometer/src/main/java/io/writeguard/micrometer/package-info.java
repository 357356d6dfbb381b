/** Binds WriteGuard listener events to Micrometer meters. */
package io.writeguard.micrometer;
