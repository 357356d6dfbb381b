package io.writeguard.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.params.ParameterizedTest;
import org.opentest4j.TestAbortedException;

/**
 * A property: a {@link ParameterizedTest} run once per generated case, fed by a
 * {@code @MethodSource} that returns {@link Generated#cases} or {@link Generated#tuples}.
 * When a case fails, the failure message starts with the case (its escaped input values) and
 * the seed, so it can be reproduced from the report alone.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest
@ExtendWith(PropertyTest.NamesTheFailingCase.class)
public @interface PropertyTest {

  /** Rewrites a failing case's error so its message names the input and the seed. */
  final class NamesTheFailingCase implements TestExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure)
        throws Throwable {
      if (failure instanceof TestAbortedException) {
        throw failure;
      }
      String test = context.getRequiredTestClass().getSimpleName() + "#"
          + context.getRequiredTestMethod().getName();
      String detail = failure instanceof AssertionError ? failure.getMessage() : failure.toString();
      AssertionError named = new AssertionError(
          "property " + test + " failed for case " + context.getDisplayName() + "\n  ("
              + Generated.seedNote() + " -Dtest=" + test + ")\n" + detail, failure);
      named.setStackTrace(failure.getStackTrace());
      throw named;
    }
  }
}
