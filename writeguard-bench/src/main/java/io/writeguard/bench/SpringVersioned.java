package io.writeguard.bench;

import io.writeguard.update.RetryPolicy;
import org.bson.types.ObjectId;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.retry.support.RetryTemplate;

/**
 * The peer of {@link WriteGuardOptimistic}, written the way Spring Data MongoDB users write it:
 * an entity with a {@code @Version} field, {@code findById}, change it in Java,
 * {@code MongoTemplate.save} (which filters on the version and throws
 * {@link OptimisticLockingFailureException} on a conflict), the whole read-change-save retried
 * by Spring Retry's {@link RetryTemplate} on WriteGuard's budget: the same number of attempts
 * and an exponential backoff from the same base to the same cap, with Spring's own jitter.
 * Spring's builder takes attempts or a timeout, not both, so it has no 5 s deadline. Thread-safe.
 */
final class SpringVersioned implements Contender {
  static final String NAME = "spring-data-version";

  /** The hot document as a Spring Data entity; {@code version} is the same field WriteGuard uses. */
  static final class HotEntity {
    @Id ObjectId id;
    @Version Long version;
    byte[] bits;
  }

  private final MongoTemplate template;
  private final String collection;
  private final RetryTemplate retry;

  SpringVersioned(Backends backends) {
    this.template = new MongoTemplate(backends.mongo(), Backends.DATABASE);
    this.collection = backends.collectionName();
    RetryPolicy budget = HotDocument.BUDGET;
    this.retry = RetryTemplate.builder()
        .maxAttempts(budget.maxAttempts())
        .exponentialBackoff(budget.baseBackoff(), 2.0, budget.maxBackoff(), true)
        .retryOn(OptimisticLockingFailureException.class)
        .build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    try {
      return retry.execute(context -> {
        HotEntity doc = template.findById(docId, HotEntity.class, collection);
        if (doc == null) {
          throw new IllegalStateException("no document _id=" + docId + " in " + collection);
        }
        doc.bits = HotDocument.withBit(doc.bits == null ? new byte[0] : doc.bits, opId);
        template.save(doc, collection);
        return context.getRetryCount() + 1;
      });
    } catch (OptimisticLockingFailureException e) {
      throw new BudgetExhaustedException("spring retry exhausted on _id=" + docId, e);
    }
  }
}
