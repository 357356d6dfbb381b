package io.writeguard.spring;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies {@link LeaseLockedInterceptor} to every method annotated {@link LeaseLocked} (on the
 * class, or on an interface method it implements). An infrastructure advisor, like the one
 * behind {@code @Transactional}, so Spring's auto-proxy creator applies it. Thread-safe.
 */
final class LeaseLockedAdvisor extends AbstractPointcutAdvisor {
  private static final long serialVersionUID = 1L;

  private final transient Pointcut pointcut =
      new AnnotationMatchingPointcut(null, LeaseLocked.class, true);
  private final transient Advice advice;

  LeaseLockedAdvisor(LeaseLockedInterceptor interceptor) {
    this.advice = interceptor;
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return advice;
  }
}
