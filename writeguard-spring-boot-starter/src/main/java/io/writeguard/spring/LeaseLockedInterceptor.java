package io.writeguard.spring;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Runs a {@link LeaseLocked} method under its lock: computes the key, acquires (waiting),
 * binds the handle ({@code LockHandle} parameters and {@link CurrentLock}), calls the method,
 * and releases in a {@code finally}; a method returning a {@code Mono} or a future is handed to
 * {@link AsyncLeaseLocking}, which holds the lock until its work ends. Each method's annotation is read and its key expression
 * parsed once, on its first call, and cached. Thread-safe.
 */
final class LeaseLockedInterceptor implements MethodInterceptor {
  private static final Logger log = LoggerFactory.getLogger(LeaseLockedInterceptor.class);

  private final LockServiceResolver services;
  private final ObjectProvider<WriteGuardProperties> properties;
  private final ObjectProvider<WriteGuardExceptionTranslator> translators;
  private final BeanFactory beanFactory;
  private final SpelExpressionParser parser = new SpelExpressionParser();
  private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
  private final Map<MethodClassKey, Plan> plans = new ConcurrentHashMap<>();

  /**
   * The settings and the translator are looked up when first needed: this interceptor is made
   * while Spring sets up its proxies, before ordinary beans should be.
   */
  LeaseLockedInterceptor(ListableBeanFactory beanFactory,
      ObjectProvider<WriteGuardProperties> properties,
      ObjectProvider<WriteGuardExceptionTranslator> translators) {
    this.services = new LockServiceResolver(beanFactory);
    this.properties = properties;
    this.translators = translators;
    this.beanFactory = beanFactory;
  }

  /** What one annotated method needs, worked out once. */
  private record Plan(Method method, Expression key, String keySource, Duration waitTimeout,
      String service, int[] handleParameters, Async async) {}

  /** What a method returns: its work is done when it returns, or later. */
  private enum Async { NONE, MONO, STAGE }

  private volatile AsyncLeaseLocking asyncLocking;

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Class<?> targetClass = invocation.getThis() == null
        ? invocation.getMethod().getDeclaringClass()
        : AopUtils.getTargetClass(invocation.getThis());
    Plan plan = plans.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
        k -> plan(invocation.getMethod(), targetClass));
    Object[] arguments = invocation.getArguments();
    String key = key(plan, invocation, arguments);
    LockService service = services.resolve(plan.service());
    if (CurrentLock.holds(service, key)) {
      throw new IllegalStateException(describe(plan.method()) + " wants lock '" + key + "' ("
          + service.backend() + ") that this thread already holds: locks are not reentrant,"
          + " and waiting for itself would only time out");
    }
    Duration deadline = properties.getObject().getLock().getCallDeadline();
    if (deadline == null) {
      return invokeLocked(plan, invocation, arguments, key, service);
    }
    // The wait, the method and the release share the call's budget (see Deadlines).
    Throwable[] thrown = new Throwable[1];
    Object result = Deadlines.within(deadline, () -> {
      try {
        return invokeLocked(plan, invocation, arguments, key, service);
      } catch (Throwable t) {
        thrown[0] = t;
        return null;
      }
    });
    if (thrown[0] != null) {
      throw thrown[0];
    }
    return result;
  }

  private Object invokeLocked(Plan plan, MethodInvocation invocation, Object[] arguments,
      String key, LockService service) throws Throwable {
    WriteGuardExceptionTranslator translator = translators.getObject();
    if (plan.async() != Async.NONE) {
      return asyncLocking().invoke(invocation, plan.async() == Async.MONO, service, key,
          plan.waitTimeout(), properties.getObject().getLock().getCallDeadline(),
          plan.handleParameters(), translator);
    }
    LockHandle handle = translator.translating(() -> service.acquire(key, plan.waitTimeout()));
    try {
      for (int index : plan.handleParameters()) {
        arguments[index] = handle;
      }
      CurrentLock.bind(handle, service);
      try {
        return invocation.proceed();
      } finally {
        CurrentLock.unbind(handle);
      }
    } catch (RuntimeException e) {
      throw translator.translate(e);
    } finally {
      release(handle);
    }
  }

  private AsyncLeaseLocking asyncLocking() {
    AsyncLeaseLocking locking = asyncLocking;
    if (locking == null) {
      // Made on the first asynchronous call: its class needs writeguard-reactor and Reactor,
      // which the advisor checked before letting such a method through.
      locking = new AsyncLeaseLocking(beanFactory);
      asyncLocking = locking;
    }
    return locking;
  }

  private static void release(LockHandle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      // The method's outcome stands; the lease runs out by itself.
      log.warn("releasing lock '{}' (token {}) failed; its lease will expire: {}",
          handle.key(), handle.token(), e.toString());
    }
  }

  private String key(Plan plan, MethodInvocation invocation, Object[] arguments) {
    MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
        invocation.getThis(), plan.method(), arguments, parameterNames);
    context.setBeanResolver(new BeanFactoryResolver(beanFactory));
    Object value;
    try {
      value = plan.key().getValue(context);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException("@LeaseLocked key '" + plan.keySource() + "' of "
          + describe(plan.method()) + " cannot be evaluated: " + e.getMessage(), e);
    }
    String key = value == null ? null : value.toString();
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("@LeaseLocked key '" + plan.keySource() + "' of "
          + describe(plan.method()) + " gave " + (key == null ? "null" : "'" + key + "'")
          + ": a lock key must not be blank");
    }
    return key;
  }

  private Plan plan(Method invoked, Class<?> targetClass) {
    Method method = AopUtils.getMostSpecificMethod(invoked, targetClass);
    LeaseLocked annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaseLocked.class);
    if (annotation == null) {
      annotation = AnnotatedElementUtils.findMergedAnnotation(invoked, LeaseLocked.class);
    }
    if (annotation == null) {
      throw new IllegalStateException("no @LeaseLocked on " + describe(method));
    }
    Expression key;
    try {
      key = parser.parseExpression(annotation.key());
    } catch (ParseException e) {
      throw new IllegalArgumentException("@LeaseLocked key '" + annotation.key() + "' of "
          + describe(method) + " is not a valid SpEL expression: " + e.getMessage(), e);
    }
    WriteGuardProperties.Lock defaults = properties.getObject().getLock();
    Duration wait = defaults.getDefaultWait();
    if (!annotation.waitTimeout().isBlank()) {
      try {
        wait = DurationStyle.detectAndParse(annotation.waitTimeout());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("@LeaseLocked waitTimeout of " + describe(method)
            + " must be a duration such as 5s or PT5S, was '" + annotation.waitTimeout() + "'", e);
      }
      if (wait.isNegative() || wait.isZero()) {
        throw new IllegalArgumentException("@LeaseLocked waitTimeout of " + describe(method)
            + " must be positive, was '" + annotation.waitTimeout() + "'");
      }
    }
    String service = annotation.service().isBlank()
        ? defaults.getDefaultService() : annotation.service();
    Class<?>[] types = invoked.getParameterTypes();
    int[] handles = java.util.stream.IntStream.range(0, types.length)
        .filter(i -> types[i] == LockHandle.class).toArray();
    String async = LeaseLockedAdvisor.lockableAsyncType(invoked.getReturnType());
    Async kind = async == null ? Async.NONE
        : LeaseLockedAdvisor.MONO.equals(async) ? Async.MONO : Async.STAGE;
    return new Plan(method, key, annotation.key(), wait, service, handles, kind);
  }

  private static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }
}
