/**
 * Shared internals of WriteGuard. <strong>Not API</strong>: anything here may change or
 * disappear in any release; do not use it from outside WriteGuard.
 */
package io.writeguard.internal;
