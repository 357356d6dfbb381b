package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The configuration metadata an IDE reads (generated from {@link WriteGuardProperties}, plus
 * {@code additional-spring-configuration-metadata.json}) gives every {@code writeguard.*}
 * property that has a default that default, and no default to one that has none.
 */
class ConfigurationMetadataDefaultsTest {

  @Test
  void everyPropertyWithADefaultHasItInTheMetadata() throws Exception {
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    for (Map<String, Object> property : properties()) {
      String name = (String) property.get("name");
      if (!name.startsWith("writeguard.")) {
        continue;
      }
      checked++;
      Object actual = valueOf(new WriteGuardProperties(), name.substring("writeguard.".length()));
      Object documented = property.get("defaultValue");
      if (!sameDefault(actual, documented)) {
        wrong.add(name + ": the properties class says " + actual + ", the metadata " + documented);
      }
    }
    assertThat(checked).as("writeguard.* properties in the metadata").isGreaterThanOrEqualTo(29);
    assertThat(wrong).as("metadata defaults that differ from the properties classes").isEmpty();
  }

  @Test
  void theAdvisorOrderDefaultIsTheAdvisorsOwn() throws Exception {
    Map<String, Object> advisorOrder = properties().stream()
        .filter(p -> "writeguard.lock.advisor-order".equals(p.get("name"))).findFirst().orElseThrow();
    assertThat(advisorOrder.get("defaultValue")).as("writeguard.lock.advisor-order's default")
        .isInstanceOf(Number.class);
    assertThat(((Number) advisorOrder.get("defaultValue")).intValue()).isEqualTo(LeaseLockedAdvisor.DEFAULT_ORDER);
  }

  private static boolean sameDefault(Object actual, Object documented) {
    if (actual == null || documented == null) {
      return actual == null && documented == null;
    }
    if (actual instanceof Duration d) {
      return d.equals(DurationStyle.detectAndParse(documented.toString()));
    }
    if (actual instanceof Number n && documented instanceof Number m) {
      return n.doubleValue() == m.doubleValue();
    }
    return actual.toString().equals(documented.toString());
  }

  /** Follows {@code lock.advisor-order} through the getters: getLock().getAdvisorOrder(). */
  private static Object valueOf(Object bean, String path) throws Exception {
    Object current = bean;
    for (String part : path.split("\\.")) {
      current = getter(current.getClass(), camel(part)).invoke(current);
      if (current == null) {
        return null;
      }
    }
    return current;
  }

  private static Method getter(Class<?> type, String property) throws Exception {
    for (var descriptor : Introspector.getBeanInfo(type).getPropertyDescriptors()) {
      if (descriptor.getName().equals(property) && descriptor.getReadMethod() != null) {
        return descriptor.getReadMethod();
      }
    }
    throw new AssertionError("no getter for '" + property + "' on " + type.getName());
  }

  private static String camel(String kebab) {
    StringBuilder out = new StringBuilder();
    boolean up = false;
    for (char c : kebab.toCharArray()) {
      if (c == '-') {
        up = true;
      } else {
        out.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    return out.toString();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> properties() throws IOException {
    try (InputStream in = ConfigurationMetadataDefaultsTest.class
        .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the generated metadata").isNotNull();
      Map<String, Object> metadata = JsonParserFactory.getJsonParser()
          .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      return (List<Map<String, Object>>) metadata.get("properties");
    }
  }
}
