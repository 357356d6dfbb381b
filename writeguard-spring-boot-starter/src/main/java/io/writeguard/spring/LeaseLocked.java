package io.writeguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a lease lock on the key that {@link #key()}
 * computes from its arguments. Unlike a skip-if-busy scheduler lock, a caller that finds the
 * key held waits for it, up to {@link #waitTimeout()}; the method then runs with a fencing
 * token, strictly greater than every earlier holder's, which it passes to fenced writes
 * ({@code FencedWriter}) so MongoDB itself refuses a holder whose lease ran out.
 *
 * <pre>{@code
 * @LeaseLocked(key = "'invoice:' + #invoiceId", waitTimeout = "5s")
 * public void settle(String invoiceId, LockHandle lock) {   // callers pass null for lock
 *   Document invoice = fenced.claim(lock, invoiceId).orElseThrow();
 *   fenced.updateOne(lock, invoiceId, Updates.set("status", "settled"));
 * }
 * }</pre>
 *
 * <ul>
 *   <li>The held {@code LockHandle} is given to every parameter of type {@code LockHandle}
 *       (whatever the caller passed there), and is {@link CurrentLock#get()} for the duration
 *       of the call on the calling thread.
 *   <li>A lock not had within the wait is a Spring {@code CannotAcquireLockException}; a
 *       backend failure a {@code DataAccessResourceFailureException}; the method does not
 *       run. WriteGuard exceptions the method throws are translated the same way
 *       ({@link WriteGuardExceptionTranslator}).
 *   <li>The lock is released when the method returns or throws, always; a failed release is
 *       logged (the lease then runs out by itself) and never replaces the method's outcome.
 *   <li>A method returning a {@code Mono}, a {@code CompletionStage} or a
 *       {@code CompletableFuture} holds the lock until the returned work completes or fails; a
 *       cancel once the lock is had detaches the caller but never releases the lock before
 *       the work ends. The lock is waited for on the {@code ReactiveWriteGuard}'s lock-wait
 *       threads and released on its finishing threads, never on the caller's thread (needs
 *       writeguard-reactor). Other asynchronous
 *       results ({@code Flux}, a plain {@code Future}) are refused at startup.
 *   <li>Locks are not reentrant: calling a method locked on a key from within a method that
 *       already holds that key through the same service fails at once with an
 *       {@code IllegalStateException} instead of waiting for itself.
 *   <li>Like every Spring proxy-based annotation, it applies to calls through the bean, not to
 *       a call from the bean to itself ({@code this.settle(...)}).
 * </ul>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaseLocked {

  /**
   * The lock key, a SpEL expression over the method's arguments: by name ({@code #invoiceId},
   * needs {@code -parameters}, which Boot's build plugins set) or position ({@code #p0}).
   * It must give a non-blank value; its {@code toString()} is the key.
   */
  String key();

  /**
   * How long to wait for the lock: {@code 500ms}, {@code 5s}, {@code PT5S}. Empty: the
   * {@code writeguard.lock.default-wait} property.
   */
  String waitTimeout() default "";

  /**
   * The lock service: a backend name ({@code mongo}, {@code redis}, {@code local}) or the name
   * of a {@code LockService} bean. Empty: the {@code writeguard.lock.default-service} property.
   */
  String service() default "";
}
