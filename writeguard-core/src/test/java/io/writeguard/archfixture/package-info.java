/**
 * Classes that break the layer rules on purpose, the way core once did, so {@code LayersTest}
 * can show its rules fail: {@code internal} using {@code lock} (the lease engine speaking the
 * lock API's types), and {@code lock} and {@code update} using each other (the typed fenced
 * writer using the updater's typed documents). Never part of the real check.
 */
package io.writeguard.archfixture;
