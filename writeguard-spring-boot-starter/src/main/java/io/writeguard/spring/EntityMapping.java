package io.writeguard.spring;

import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.bson.Document;
import org.springframework.data.mongodb.core.convert.MongoConverter;
import org.springframework.data.mongodb.core.mapping.MongoPersistentEntity;

/**
 * How an entity update becomes a document update, whatever writes it ({@link EntityUpdater}
 * optimistically, {@link LockedEntityUpdater} under a lock): the id converted as Spring Data
 * converts ids, the change function run on the entity mapped from the document read, the result
 * mapped back to a replacement that keeps the id and the fields the entity does not map, and the
 * stored document mapped again. Thread-safe.
 */
final class EntityMapping<T> {
  private final Class<T> type;
  private final MongoPersistentEntity<?> entity;
  private final MongoConverter converter;

  EntityMapping(Class<T> type, MongoPersistentEntity<?> entity, MongoConverter converter) {
    this.type = type;
    this.entity = entity;
    this.converter = converter;
  }

  /** Runs {@code change} on entity {@code id} through {@code writes} (an updater's update). */
  T update(Object id, UnaryOperator<T> change, BiFunction<Object, Mutator, UpdateOutcome> writes) {
    Objects.requireNonNull(change, "change");
    Object storedId = storedId(Objects.requireNonNull(id, "id"));
    UpdateOutcome outcome = writes.apply(storedId, current -> {
      T changed = change.apply(converter.read(type, current));
      if (changed == null) {
        return Mutation.none();
      }
      return Mutation.replace(replacement(changed, current));
    });
    return converter.read(type, outcome.document().orElseThrow());
  }

  private Object storedId(Object id) {
    var idProperty = entity.getIdProperty();
    return idProperty == null ? id : converter.convertId(id, idProperty.getFieldType());
  }

  private Document replacement(T changed, Document current) {
    Document written = new Document();
    converter.write(changed, written);
    Object changedId = written.get("_id");
    if (changedId != null && !changedId.equals(current.get("_id"))) {
      // Replacing would silently write the change to the document read, not the one named.
      throw new IllegalArgumentException(type.getName() + " change of '" + current.get("_id")
          + "' returned an entity with another id, '" + changedId + "': the id is not"
          + " changed by an update; nothing written");
    }
    for (var field : current.entrySet()) {
      String name = field.getKey();
      if (!written.containsKey(name) && !"_id".equals(name) && !mapped(name)) {
        written.put(name, field.getValue());
      }
    }
    written.put("_id", current.get("_id"));
    return written;
  }

  private boolean mapped(String fieldName) {
    if (converter.getTypeMapper().isTypeKey(fieldName)) {
      return true;
    }
    for (var property : entity) {
      if (property.getFieldName().equals(fieldName)) {
        return true;
      }
    }
    return false;
  }
}
