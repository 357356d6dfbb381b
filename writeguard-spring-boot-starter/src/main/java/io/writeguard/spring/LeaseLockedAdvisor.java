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
 * <p><b>Asynchronous methods are refused.</b> A method returning a {@code Future}, a
 * {@code CompletionStage} or a Reactive Streams {@code Publisher} ({@code Mono}, {@code Flux},
 * or the JDK's {@code Flow.Publisher})
 * returns before its work is done, so the lock would be released while the work still runs.
 * Such a method fails the application's start (when its bean is proxied) with an
 * {@link IllegalStateException} naming it.
 */
final class LeaseLockedAdvisor extends AbstractPointcutAdvisor {
  private static final long serialVersionUID = 1L;

  /** Outside the transaction advisor at its default order ({@link Ordered#LOWEST_PRECEDENCE}). */
  static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

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
      String async = asyncType(method.getReturnType());
      if (async != null) {
        Method specific = targetClass == null ? method
            : AopUtils.getMostSpecificMethod(method, targetClass);
        throw new IllegalStateException("@LeaseLocked on " + specific.getDeclaringClass()
            .getName() + "." + specific.getName() + "(), which returns "
            + method.getReturnType().getName() + " (a " + async + "): it returns before its"
            + " work is done, and the lock would be released while the work still runs. Lock"
            + " inside the asynchronous work instead (a synchronous @LeaseLocked method it"
            + " calls, or LockService.acquire around it)");
      }
      return true;
    }
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
