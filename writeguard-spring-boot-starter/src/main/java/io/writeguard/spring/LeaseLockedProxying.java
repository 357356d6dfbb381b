package io.writeguard.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists (as {@code @EnableTransactionManagement} does), so
 * {@link LeaseLocked} works even with {@code spring.aop.auto=false}; proxies are class-based so
 * beans without interfaces are advised too. Registers nothing when a creator is already there,
 * beyond asking it for class proxies.
 */
final class LeaseLockedProxying implements ImportBeanDefinitionRegistrar {
  @Override
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
  }
}
