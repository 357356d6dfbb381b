package io.writeguard.spring;

import com.mongodb.client.MongoDatabase;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.ConflictMonitor;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.update.VersionedUpdater;
import org.bson.Document;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * WriteGuard over the application's {@link MongoTemplate}: the {@link WriteGuardUpdaters}
 * factory, the MongoDB lease lock, the conflict monitor, the exception translator and the
 * {@link LeaseLocked} advisor. Every bean backs off when the application defines its own of
 * the same type.
 *
 * <p>Each updater and lock service reports to every {@link WriteGuardListener} bean (the
 * conflict monitor, the Micrometer binding, the application's own), composed so that a
 * failing listener never breaks an operation.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
    "org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration"})
@ConditionalOnClass({MongoTemplate.class, VersionedUpdater.class})
@EnableConfigurationProperties(WriteGuardProperties.class)
@Import(LeaseLockedProxying.class)
public class WriteGuardAutoConfiguration {
  /** The order of the {@code @LeaseLocked} advisor (see docs/spring-boot.md). */
  static final String ADVISOR_ORDER = "writeguard.lock.advisor-order";


  /** Bean name of the MongoDB lease lock service. */
  public static final String MONGO_LOCK_SERVICE = "writeGuardMongoLockService";

  @Bean
  @ConditionalOnMissingBean
  public ConflictMonitor writeGuardConflictMonitor(WriteGuardProperties properties) {
    WriteGuardProperties.Monitor monitor = properties.getMonitor();
    return ConflictMonitor.builder()
        .threshold(monitor.getThreshold())
        .window(monitor.getWindow(), 10)
        .build();
  }

  @Bean
  @ConditionalOnMissingBean
  public WriteGuardExceptionTranslator writeGuardExceptionTranslator() {
    return new WriteGuardExceptionTranslator();
  }

  @Bean
  @ConditionalOnBean(MongoTemplate.class)
  @ConditionalOnMissingBean
  public WriteGuardUpdaters writeGuardUpdaters(MongoTemplate template,
      WriteGuardProperties properties, ObjectProvider<WriteGuardListener> listeners,
      WriteGuardExceptionTranslator translator, ListableBeanFactory beanFactory) {
    // Lock services are looked up on first use, as for @LeaseLocked: the Redis one is made by
    // a later auto-configuration, and an updater factory must not need one to exist.
    return new WriteGuardUpdaters(template, properties.getUpdater(), listenersOf(listeners),
        translator, new LockServiceResolver(beanFactory)::resolve, properties.getLock());
  }

  @Bean(name = MONGO_LOCK_SERVICE)
  @ConditionalOnBean(MongoTemplate.class)
  @ConditionalOnMissingBean(MongoLeaseLockService.class)
  @ConditionalOnProperty(prefix = "writeguard.mongo-lock", name = "enabled", matchIfMissing = true)
  public MongoLeaseLockService writeGuardMongoLockService(MongoTemplate template,
      WriteGuardProperties properties, ObjectProvider<WriteGuardListener> listeners) {
    WriteGuardProperties.MongoLock lock = properties.getMongoLock();
    return MongoLeaseLockService.builder(template.getDb(), lock.getCollection())
        .lease(lock.getLease())
        .renewInterval(lock.getRenewInterval())
        .listener(listenersOf(listeners))
        .build();
  }

  @Bean
  @ConditionalOnBean(name = MONGO_LOCK_SERVICE)
  @ConditionalOnMissingBean(name = "writeGuardMongoLockStoreProbe")
  public LockStoreProbe writeGuardMongoLockStoreProbe(MongoTemplate template,
      WriteGuardProperties properties) {
    String collection = properties.getMongoLock().getCollection();
    return new LockStoreProbe() {
      @Override
      public String name() {
        return "mongo";
      }

      @Override
      public String check() {
        MongoDatabase db = template.getDb();
        db.runCommand(new Document("ping", 1));
        return db.getName() + "." + collection;
      }
    };
  }

  /**
   * Refuses at startup a {@code writeguard.lock.default-service} the application set that names
   * no lock service, naming the value and the ones there are; left unset, the default
   * ({@code mongo}) is checked when first used, so an application without lock services starts.
   */
  @Bean
  public SmartInitializingSingleton writeGuardDefaultLockServiceCheck(
      ListableBeanFactory beanFactory, WriteGuardProperties properties, Environment environment) {
    return () -> {
      if (!environment.containsProperty(DEFAULT_SERVICE)) {
        return;
      }
      String name = properties.getLock().getDefaultService();
      LockServiceResolver resolver = new LockServiceResolver(beanFactory);
      try {
        resolver.resolve(name);
      } catch (IllegalStateException e) {
        java.util.Set<String> allowed = resolver.names();
        throw new IllegalStateException(DEFAULT_SERVICE + "=" + name + " names no lock"
            + " service; allowed: " + (allowed.isEmpty() ? "none (no LockService bean)"
            : String.join(", ", allowed)) + " (" + e.getMessage() + ")", e);
      }
    };
  }

  /** The lock service of {@code @LeaseLocked} methods and locked updaters that name none. */
  static final String DEFAULT_SERVICE = "writeguard.lock.default-service";

  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static LeaseLockedAdvisor writeGuardLeaseLockedAdvisor(ListableBeanFactory beanFactory,
      ObjectProvider<WriteGuardProperties> properties,
      ObjectProvider<WriteGuardExceptionTranslator> translators, Environment environment) {
    // Read from the environment: the properties bean is not to be made this early.
    Integer order = environment.getProperty(ADVISOR_ORDER, Integer.class,
        LeaseLockedAdvisor.DEFAULT_ORDER);
    return new LeaseLockedAdvisor(
        new LeaseLockedInterceptor(beanFactory, properties, translators), order);
  }

  /** Every listener bean, each call isolated from the others' failures. */
  static WriteGuardListener listenersOf(ObjectProvider<WriteGuardListener> listeners) {
    return WriteGuardListener.composite(
        listeners.orderedStream().toArray(WriteGuardListener[]::new));
  }
}
