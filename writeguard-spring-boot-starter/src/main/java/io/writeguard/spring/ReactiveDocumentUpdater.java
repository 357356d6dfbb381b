package io.writeguard.spring;

import io.writeguard.reactor.ReactiveUpdater;
import io.writeguard.reactor.ReactiveWriteGuard;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link DocumentUpdater} for Reactor: run on the {@link ReactiveWriteGuard}'s executor when
 * the Mono is subscribed, errors as the translated Spring exceptions. Thread-safe.
 */
public final class ReactiveDocumentUpdater {
  private final DocumentUpdater updater;
  private final ReactiveUpdater reactive;

  ReactiveDocumentUpdater(DocumentUpdater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.reactive = guard.updater(updater);
  }

  /** {@link DocumentUpdater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return reactive.update(id, mutator);
  }

  /** {@link DocumentUpdater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return reactive.updateOne(id, mutator);
  }

  /** The blocking updater underneath. */
  public DocumentUpdater blocking() {
    return updater;
  }
}
