package io.writeguard.spring;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcher;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Applies {@link LeaseLockedInterceptor} to every method annotated {@link LeaseLocked} (on the
 * class, or on an interface method it implements). An infrastructure advisor, like the one
 * behind {@code @Transactional}, so Spring's auto-proxy creator applies it. Thread-safe.
 *
 * <p><b>Order.</b> The lock must be held around the whole transaction of a method that is also
 * {@code @Transactional}: taken before it begins, released after it commits, or a second
 * holder could read the state the first has not committed yet. Spring runs advisors of a lower
 * order value outside those of a higher one, and the transaction advisor's order is
 * {@code @EnableTransactionManagement(order)}, {@link Ordered#LOWEST_PRECEDENCE} by default (as
 * Boot configures it). So this advisor's order is {@link #DEFAULT_ORDER} unless
 * {@code writeguard.lock.advisor-order} says otherwise; an application that lowers the
 * transaction advisor's order must set this one lower still. Without an order both would tie,
 * and a tie is settled by registration order: with the application's own
 * {@code @EnableTransactionManagement} the lock was released before the commit.
 *
 * <p><b>Asynchronous methods.</b> A method declared to return a {@code Mono}, a
 * {@code CompletionStage} or a {@code CompletableFuture} holds its lock until the returned work
 * ends ({@code AsyncLeaseLocking}); that needs writeguard-reactor and Reactor, and without them
 * such a method fails the application's start. Any other asynchronous result (a plain
 * {@code Future}, a {@code Flux} or other Reactive Streams {@code Publisher}, the JDK's
 * {@code Flow.Publisher}, a subclass of {@code CompletableFuture}) returns before its work is
 * done, and no lock is held over it: such a method fails the application's start (when its
 * bean is proxied) with an {@link IllegalStateException} naming it.
 */
final class LeaseLockedAdvisor extends AbstractPointcutAdvisor {
  private static final long serialVersionUID = 1L;

  /** Outside the transaction advisor at its default order ({@link Ordered#LOWEST_PRECEDENCE}). */
  static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  /** The one Reactive Streams type whose end a lock is held over. */
  static final String MONO = "reactor.core.publisher.Mono";

  private static final String[] LOCKABLE_ASYNC_TYPES = {MONO,
      "java.util.concurrent.CompletionStage", "java.util.concurrent.CompletableFuture"};

  private static final boolean ASYNC_LOCKING_PRESENT =
      isPresent(MONO) && isPresent("io.writeguard.reactor.ReactiveWriteGuard");

  private static final String[] ASYNC_TYPES = {"java.util.concurrent.Future",
      "java.util.concurrent.CompletionStage", "org.reactivestreams.Publisher",
      "java.util.concurrent.Flow$Publisher"};

  private final transient Pointcut pointcut = new SynchronousOnly(
      new AnnotationMatchingPointcut(null, LeaseLocked.class, true));
  private final transient Advice advice;

  LeaseLockedAdvisor(LeaseLockedInterceptor interceptor, int order) {
    this.advice = interceptor;
    setOrder(order);
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return advice;
  }

  /** The annotated methods, each checked, as it is matched, for an asynchronous result. */
  private static final class SynchronousOnly extends StaticMethodMatcher implements Pointcut {
    private final Pointcut annotated;

    SynchronousOnly(Pointcut annotated) {
      this.annotated = annotated;
    }

    @Override
    public ClassFilter getClassFilter() {
      return annotated.getClassFilter();
    }

    @Override
    public MethodMatcher getMethodMatcher() {
      return this;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
      if (!annotated.getMethodMatcher().matches(method, targetClass)) {
        return false;
      }
      Method specific = targetClass == null ? method
          : AopUtils.getMostSpecificMethod(method, targetClass);
      String lockable = lockableAsyncType(method.getReturnType());
      if (lockable != null) {
        if (!ASYNC_LOCKING_PRESENT) {
          throw new IllegalStateException("@LeaseLocked on " + describe(specific)
              + ", which returns " + lockable + ": holding the lock until that work ends needs"
              + " io.writeguard:writeguard-reactor (and Reactor) on the classpath, whose"
              + " executor acquires and releases the lock; add it");
        }
        return true;
      }
      String async = asyncType(method.getReturnType());
      if (async != null) {
        throw new IllegalStateException("@LeaseLocked on " + describe(specific)
            + ", which returns " + method.getReturnType().getName() + " (a " + async + "): it"
            + " returns before its work is done, and the lock would be released while the work"
            + " still runs. Only Mono, CompletionStage and CompletableFuture results are held"
            + " to their end; lock inside the asynchronous work instead (a @LeaseLocked method"
            + " returning one of those, or LockService.acquire around it)");
      }
      return true;
    }
  }

  private static String describe(Method method) {
    return method.getDeclaringClass().getName() + "." + method.getName() + "()";
  }

  /**
   * The asynchronous type whose end a lock can be held over, when {@code type} is exactly
   * one ({@code Mono}, {@code CompletionStage}, {@code CompletableFuture}); else null.
   */
  static String lockableAsyncType(Class<?> type) {
    for (String name : LOCKABLE_ASYNC_TYPES) {
      if (type.getName().equals(name)) {
        return name;
      }
    }
    return null;
  }

  private static boolean isPresent(String className) {
    return org.springframework.util.ClassUtils.isPresent(className,
        LeaseLockedAdvisor.class.getClassLoader());
  }

  /** The asynchronous type {@code type} is or extends, or null. */
  static String asyncType(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      String found = asyncInterface(c);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static String asyncInterface(Class<?> type) {
    for (String name : ASYNC_TYPES) {
      if (type.getName().equals(name)) {
        return name;
      }
    }
    for (Class<?> i : type.getInterfaces()) {
      String found = asyncInterface(i);
      if (found != null) {
        return found;
      }
    }
    return null;
  }
}
