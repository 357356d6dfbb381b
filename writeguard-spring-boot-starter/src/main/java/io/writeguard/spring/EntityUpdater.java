package io.writeguard.spring;

import java.util.function.UnaryOperator;
import org.springframework.data.mongodb.core.convert.MongoConverter;

/**
 * Optimistic read-modify-write of one mapped entity, through the application's own
 * {@link MongoConverter}: each attempt reads the document, maps it to a {@code T}, hands it to
 * the change function, maps the result back and replaces the document if its version did not
 * move; otherwise the attempt is retried from a fresh read, as {@link DocumentUpdater} does.
 *
 * <p>Why replace and not {@code $set}: a mapped property set to {@code null} is left out by the
 * converter, and a replacement removes it as the entity says. Fields the entity does not map
 * (a {@code FencedWriter}'s {@code _fence}, another application's fields) are carried over from
 * the document as read, so mapping an entity never lowers a fence or drops foreign data. The
 * version is the entity's Spring Data {@code @Version} property (its mapped field name), written
 * by the library: the change function must not alter it.
 *
 * <p>The change function must be pure, as a {@code Mutator}: it may run once per attempt, each
 * time on a freshly read entity it may modify and return. Returning {@code null} writes nothing.
 * It may return a new instance instead (an immutable entity, such as a Java record, mapped
 * through its constructor): it must keep the id ({@code IllegalArgumentException} otherwise)
 * and leave the version as read or {@code null}.
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class EntityUpdater<T> {
  private final EntityMapping<T> mapping;
  private final DocumentUpdater documents;

  EntityUpdater(EntityMapping<T> mapping, DocumentUpdater documents) {
    this.mapping = mapping;
    this.documents = documents;
  }

  /**
   * Applies {@code change} to entity {@code id} and returns the entity as written (with its new
   * version), or as read when {@code change} returned {@code null}.
   *
   * @param id the entity's id, converted as Spring Data converts ids (a 24-hex {@code String}
   *     id of a {@code String} property becomes an {@code ObjectId})
   * @throws org.springframework.dao.DataAccessException translated as listed in
   *     {@link WriteGuardExceptionTranslator}; an exception thrown by {@code change} reaches the
   *     caller unchanged
   * @throws IllegalArgumentException if {@code change} returned an entity with another id
   */
  public T update(Object id, UnaryOperator<T> change) {
    return mapping.update(id, change, documents::update);
  }

  /** The document updater underneath, for changes better said with update operators. */
  public DocumentUpdater documents() {
    return documents;
  }
}
