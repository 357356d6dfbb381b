package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.spring.LeaseLockedAdvisorOrderTest.RecordingLocks;
import io.writeguard.lock.LockService;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Review of issue 17 (adversarial): the refusal of asynchronous {@code @LeaseLocked} methods
 * knows Reactive Streams' {@code org.reactivestreams.Publisher} but not the JDK's own
 * Reactive Streams interface, {@code java.util.concurrent.Flow.Publisher} (and so not
 * {@code SubmissionPublisher}): such a method starts, returns at once, and its lock is released
 * while the work it published still runs. docs/spring-boot.md: "one returning a Future, a
 * CompletionStage or a Reactive Streams Publisher ... stops the application's start".
 */
class LeaseLockedAdvisorReview17Test {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withPropertyValues("writeguard.lock.default-service=recording");

  public static class JdkFlow {
    @LeaseLocked(key = "'flow'")
    public Flow.Publisher<String> flow() {
      SubmissionPublisher<String> publisher = new SubmissionPublisher<>();
      publisher.submit("done");
      publisher.close();
      return publisher;
    }
  }

  @Test
  void theJdksFlowPublisherIsAnAsynchronousResultToo() {
    assertThat(LeaseLockedAdvisor.asyncType(Flow.Publisher.class)).isNotNull();
    assertThat(LeaseLockedAdvisor.asyncType(SubmissionPublisher.class)).isNotNull();
  }

  @Test
  void aLockedMethodReturningAJdkFlowPublisherIsRefusedAtStart() {
    runner.withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class))
        .withBean(LockService.class, RecordingLocks::new)
        .withBean(JdkFlow.class)
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable root = context.getStartupFailure();
          while (root.getCause() != null) {
            root = root.getCause();
          }
          assertThat(root).isInstanceOf(IllegalStateException.class)
              .hasMessageContaining(JdkFlow.class.getName() + ".flow()");
        });
  }
}
