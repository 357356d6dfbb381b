package io.writeguard.spring;

import io.writeguard.reactor.ReactiveQueueFullException;
import java.util.function.Function;
import org.springframework.dao.TransientDataAccessResourceException;

/**
 * The error mapping of the starter's {@code ReactiveWriteGuard}: WriteGuard's exceptions as
 * {@link WriteGuardExceptionTranslator} translates them, and a full executor as Spring's
 * {@link TransientDataAccessResourceException} (nothing was started; a later call may pass),
 * the family an outage maps to. Here, not in the translator, because this class is loaded only
 * when writeguard-reactor is there.
 */
final class ReactiveErrors {
  private ReactiveErrors() {}

  static Function<Throwable, Throwable> translating(WriteGuardExceptionTranslator translator) {
    return error -> {
      if (error instanceof ReactiveQueueFullException full) {
        return new TransientDataAccessResourceException(full.getMessage(), full);
      }
      return error instanceof RuntimeException runtime ? translator.translate(runtime) : error;
    };
  }
}
