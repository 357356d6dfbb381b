package io.writeguard.spring.example;

import io.writeguard.spring.WriteGuardUpdaters;
import io.writeguard.update.Mutation;
import io.writeguard.update.UpdateOutcome;
import org.springframework.stereotype.Repository;

/** A repository that uses the WriteGuard updater as it is, relying on Spring's translation. */
@Repository
public class AccountRepository {
  private final WriteGuardUpdaters updaters;

  public AccountRepository(WriteGuardUpdaters updaters) {
    this.updaters = updaters;
  }

  /** Marks an account; WriteGuard's own exceptions leave this method untranslated. */
  public UpdateOutcome mark(String id) {
    return updaters.documents(Account.class).unwrap()
        .update(id, current -> Mutation.update(new org.bson.Document("$set",
            new org.bson.Document("marked", true))));
  }
}
