package io.writeguard.spring;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.reactor.ReactiveWriteGuard;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link LeaseLocked} on a method returning a {@code Mono}, a {@code CompletionStage} or a
 * {@code CompletableFuture}: the lock is held until the returned work ends, through
 * {@link ReactiveWriteGuard#withLock} and only it, so its rules hold here too: the lock is
 * waited for on its lock-wait threads (never on the caller's thread, nor on the threads the
 * work's calls need) and released once, when the work completes or fails, before the outcome
 * is passed on; a cancel before the lock is had never calls the method, a cancel after only
 * detaches the caller (the work runs on, the lock is held to its end). The method itself is
 * called once the lock is had, once per subscription for a Mono. Loaded only when
 * writeguard-reactor and Reactor are there. Thread-safe.
 */
final class AsyncLeaseLocking {
  private final ObjectProvider<ReactiveWriteGuard> guards;

  AsyncLeaseLocking(BeanFactory beanFactory) {
    this.guards = beanFactory.getBeanProvider(ReactiveWriteGuard.class);
  }

  /**
   * The Mono or the future the caller gets instead of the method's own.
   *
   * @param callDeadline {@code writeguard.lock.call-deadline}, or null: it bounds the lock
   *     wait from the call (from each subscription for a Mono), as for a blocking method
   */
  Object invoke(MethodInvocation invocation, boolean mono, LockService service, String key,
      Duration wait, Duration callDeadline, int[] handleParameters,
      WriteGuardExceptionTranslator translator) {
    ReactiveWriteGuard guard = guards.getObject();
    // A Mono method only assembles its Mono; a future method's body does its work before it
    // returns (a blocking call, an inner @Transactional, a join()), as it would on the
    // caller's thread without the lock: never on the non-blocking thread the handle arrives on.
    // The handle is bound with the service itself (CurrentLock compares services).
    Mono<Object> locked = Mono.defer(() -> guard.withLock(
            callDeadline == null ? service : new DeadlineBoundLocks(service, callDeadline),
            key, wait,
            handle -> mono ? call(invocation, handle, service, handleParameters, true)
                : Mono.defer(() -> call(invocation, handle, service, handleParameters, false))
                    .subscribeOn(Schedulers.boundedElastic())))
        .onErrorMap(RuntimeException.class, translator::translate);
    if (mono) {
      return locked;
    }
    CompletableFuture<Object> result = new CompletableFuture<>();
    // Never cancelled from here: cancelling the returned future leaves the work and its lock
    // to end by themselves, so a lock is never released while the work still runs.
    locked.subscribe(result::complete, result::completeExceptionally, () -> result.complete(null));
    return result;
  }

  private static Mono<Object> call(MethodInvocation invocation, LockHandle handle,
      LockService service, int[] handleParameters, boolean mono) {
    Object[] arguments = invocation.getArguments().clone();
    for (int index : handleParameters) {
      arguments[index] = handle;
    }
    // One clone per subscription: a resubscribed Mono calls the method again, whole chain.
    MethodInvocation call = invocation instanceof ProxyMethodInvocation proxied
        ? proxied.invocableClone(arguments) : invocation;
    Object returned;
    CurrentLock.bind(handle, service);
    try {
      returned = call.proceed();
    } catch (Throwable e) {
      return Mono.error(e);
    } finally {
      CurrentLock.unbind(handle);
    }
    if (returned == null) {
      return Mono.empty();
    }
    if (mono) {
      @SuppressWarnings("unchecked")
      Mono<Object> work = (Mono<Object>) returned;
      return work;
    }
    @SuppressWarnings("unchecked")
    CompletionStage<Object> stage = (CompletionStage<Object>) returned;
    return Mono.fromCompletionStage(stage);
  }
}
