package io.writeguard.spring;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockService;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Updater;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.bson.Document;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.mapping.MongoPersistentEntity;
import org.springframework.data.mongodb.core.mapping.MongoPersistentProperty;

/**
 * Makes WriteGuard's writers for the application's collections, through its
 * {@link MongoTemplate}: same database, same collection names, same converter, same write
 * concern.
 *
 * <p>For an entity class the version field is the mapped field name of its Spring Data
 * {@code @Version} property, which must be a {@code Long} or {@code long} (WriteGuard's
 * versions are int64, starting at 0, +1 per write: the scheme Spring Data uses). Spring Data's
 * own {@code save} and WriteGuard's updaters then check one and the same version, so either
 * one's stale write is refused. An entity without {@code @Version}, and a collection named by
 * name, use {@code writeguard.updater.version-field}.
 *
 * <p>Entities, Java records included, are mapped by the template's converter (Spring Data's
 * {@code @Id}, {@code @Field}, {@code @Version}), not by the driver's codecs: a variant over
 * core's typed updater would map the same class a second, different way (the driver's codecs
 * know {@code @BsonId}, not {@code @Id}), so there is none. Writers are made once per
 * collection and cached. Thread-safe.
 */
public final class WriteGuardUpdaters {
  private final MongoTemplate template;
  private final RetryPolicy retryPolicy;
  private final String defaultVersionField;
  private final String strategyName;
  private final WriteGuardListener listener;
  private final WriteGuardExceptionTranslator translator;
  private final Function<String, LockService> lockServices;
  private final String defaultLockService;
  private final Duration lockWait;
  private final Map<List<Object>, LockedEntityUpdater<?>> lockedByEntity =
      new ConcurrentHashMap<>();
  private final Map<String, DocumentUpdater> byCollection = new ConcurrentHashMap<>();
  private final Map<Class<?>, EntityUpdater<?>> byEntity = new ConcurrentHashMap<>();
  private final Map<String, FencedWriter> fencedByCollection = new ConcurrentHashMap<>();

  /**
   * Without lock services: {@link #lockedEntities} is refused.
   *
   * @param template the application's template
   * @param properties {@code writeguard.updater.*}
   * @param listener hears every updater's events (the conflict monitor, the meters)
   * @param translator turns failures into Spring exceptions
   */
  public WriteGuardUpdaters(MongoTemplate template, WriteGuardProperties.Updater properties,
      WriteGuardListener listener, WriteGuardExceptionTranslator translator) {
    this(template, properties, listener, translator, name -> {
      throw new IllegalStateException("this WriteGuardUpdaters was made without lock services;"
          + " no lock service '" + name + "'");
    }, new WriteGuardProperties.Lock());
  }

  /**
   * @param template the application's template
   * @param properties {@code writeguard.updater.*}
   * @param listener hears every updater's events (the conflict monitor, the meters)
   * @param translator turns failures into Spring exceptions
   * @param lockServices the lock service of a name ({@code mongo}, {@code redis}, a bean
   *     name), asked on the first {@link #lockedEntities} call for that name
   * @param lock {@code writeguard.lock.*}: the default lock service and lock wait
   */
  public WriteGuardUpdaters(MongoTemplate template, WriteGuardProperties.Updater properties,
      WriteGuardListener listener, WriteGuardExceptionTranslator translator,
      Function<String, LockService> lockServices, WriteGuardProperties.Lock lock) {
    this.template = Objects.requireNonNull(template, "template");
    this.retryPolicy = RetryPolicy.builder()
        .maxAttempts(properties.getMaxAttempts())
        .deadline(properties.getDeadline())
        .backoff(properties.getBaseBackoff(), properties.getMaxBackoff())
        .build();
    this.defaultVersionField = properties.getVersionField();
    this.strategyName = properties.getStrategyName();
    this.listener = Objects.requireNonNull(listener, "listener");
    this.translator = Objects.requireNonNull(translator, "translator");
    this.lockServices = Objects.requireNonNull(lockServices, "lockServices");
    this.defaultLockService = lock.getDefaultService();
    this.lockWait = lock.getDefaultWait();
  }

  /** An updater of {@code Document}s in the collection named {@code collectionName}. */
  public DocumentUpdater documents(String collectionName) {
    return byCollection.computeIfAbsent(checkName(collectionName),
        name -> newUpdater(name, defaultPolicy()));
  }

  /** An updater of {@code Document}s in {@code entityType}'s collection, with its version field. */
  public DocumentUpdater documents(Class<?> entityType) {
    String collection = template.getCollectionName(entityType);
    VersionPolicy policy = versionPolicy(entityType);
    DocumentUpdater updater =
        byCollection.computeIfAbsent(collection, name -> newUpdater(name, policy));
    checkSamePolicy(collection, updater.unwrap().versionPolicy(), policy, entityType);
    return updater;
  }

  /** An updater of {@code entityType} entities, mapped by the template's converter. */
  @SuppressWarnings("unchecked")
  public <T> EntityUpdater<T> entities(Class<T> entityType) {
    return (EntityUpdater<T>) byEntity.computeIfAbsent(entityType,
        type -> new EntityUpdater<>(mapping(entityType), documents(entityType)));
  }

  /**
   * An updater of {@code entityType} entities under a lease lock per document, on the lock
   * service {@code writeguard.lock.default-service}: see {@link #lockedEntities(Class, String)}.
   */
  public <T> LockedEntityUpdater<T> lockedEntities(Class<T> entityType) {
    return lockedEntities(entityType, defaultLockService);
  }

  /**
   * An updater of {@code entityType} entities under a lease lock per document, mapped as
   * {@link #entities} maps them. It is built on the same collection's optimistic updater (the
   * one {@link #documents(Class)} returns): the same version field, retry policy
   * ({@code writeguard.updater.*}), listeners, and exception translation; its lock wait is
   * {@code writeguard.lock.default-wait}, its lock keys {@code <collection>:<_id>}, and it
   * reports events under the strategy name {@value #LOCKED_STRATEGY}.
   *
   * @param service a lock service: a backend ({@code mongo}, {@code redis}, {@code local}) or a
   *     {@code LockService} bean name
   * @throws IllegalStateException if there is no such lock service
   */
  @SuppressWarnings("unchecked")
  public <T> LockedEntityUpdater<T> lockedEntities(Class<T> entityType, String service) {
    Objects.requireNonNull(entityType, "entityType");
    Objects.requireNonNull(service, "service");
    return (LockedEntityUpdater<T>) lockedByEntity.computeIfAbsent(List.of(entityType, service),
        k -> {
          LockedUpdater locked = LockedUpdater
              .builder(documents(entityType).unwrap(), lockServices.apply(service))
              .lockWait(lockWait)
              .strategyName(LOCKED_STRATEGY)
              .build();
          return new LockedEntityUpdater<>(mapping(entityType),
              new LockedDocumentUpdater(locked, translator));
        });
  }

  /**
   * {@code updater}, any strategy (versioned, locked, adaptive, built by hand on this
   * application's collections), with its failures translated to Spring's
   * {@code DataAccessException}s as this class's own updaters translate them.
   */
  public TranslatingUpdater translating(Updater updater) {
    return new TranslatingUpdater(updater, translator);
  }

  /** The strategy name the locked updaters report events and meters under. */
  public static final String LOCKED_STRATEGY = "locked";

  private <T> EntityMapping<T> mapping(Class<T> entityType) {
    return new EntityMapping<>(entityType, persistentEntity(entityType), template.getConverter());
  }

  /**
   * A {@link FencedWriter} of {@code entityType}'s collection that also raises its version, so
   * a fenced write and an optimistic update of the same document never erase each other.
   */
  public FencedWriter fencedWriter(Class<?> entityType) {
    String collection = template.getCollectionName(entityType);
    VersionPolicy policy = versionPolicy(entityType);
    return fencedByCollection.computeIfAbsent(collection, name -> FencedWriter
        .builder(collection(name)).versionPolicy(policy).listener(listener).build());
  }

  /**
   * The version policy of {@code entityType}: its {@code @Version} property's field, or
   * {@code writeguard.updater.version-field} when it has none.
   *
   * @throws IllegalArgumentException if its {@code @Version} property is not a Long
   */
  public VersionPolicy versionPolicy(Class<?> entityType) {
    MongoPersistentEntity<?> entity = persistentEntity(entityType);
    MongoPersistentProperty version = entity.getVersionProperty();
    if (version == null) {
      return defaultPolicy();
    }
    Class<?> type = version.getType();
    if (type != Long.class && type != long.class) {
      throw new IllegalArgumentException(entityType.getName() + "'s @Version property '"
          + version.getName() + "' must be a Long or long (WriteGuard's versions are int64),"
          + " was " + type.getName());
    }
    return VersionPolicy.builder().field(version.getFieldName()).build();
  }

  /** The retry policy every updater uses ({@code writeguard.updater.*}). */
  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  private DocumentUpdater newUpdater(String collection, VersionPolicy policy) {
    VersionedUpdater updater = VersionedUpdater.builder(collection(collection))
        .versionPolicy(policy)
        .retryPolicy(retryPolicy)
        .listener(listener)
        .strategyName(strategyName)
        .build();
    return new DocumentUpdater(updater, translator);
  }

  private MongoCollection<Document> collection(String name) {
    return template.getCollection(name);
  }

  private VersionPolicy defaultPolicy() {
    return VersionPolicy.builder().field(defaultVersionField).build();
  }

  private MongoPersistentEntity<?> persistentEntity(Class<?> entityType) {
    Objects.requireNonNull(entityType, "entityType");
    return template.getConverter().getMappingContext().getRequiredPersistentEntity(entityType);
  }

  private static String checkName(String collectionName) {
    if (collectionName == null || collectionName.isBlank()) {
      throw new IllegalArgumentException("collectionName must not be blank, was "
          + (collectionName == null ? "null" : "'" + collectionName + "'"));
    }
    return collectionName;
  }

  private static void checkSamePolicy(String collection, VersionPolicy cached,
      VersionPolicy wanted, Class<?> entityType) {
    if (!cached.field().equals(wanted.field())) {
      throw new IllegalArgumentException("collection '" + collection + "' is already updated"
          + " with version field '" + cached.field() + "', but " + entityType.getName()
          + " maps its version to '" + wanted.field() + "'");
    }
  }
}
