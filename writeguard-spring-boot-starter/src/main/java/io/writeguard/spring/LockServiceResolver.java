package io.writeguard.spring;

import io.writeguard.lock.LockService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Finds the {@link LockService} a {@link LeaseLocked} method names: a bean of that name, else
 * the one bean whose {@link LockService#backend()} is that name. Looked up on first use (so
 * the lock services are not created early, while proxies are being made) and cached.
 * Thread-safe.
 */
final class LockServiceResolver {
  private final ListableBeanFactory beans;
  private final Map<String, LockService> resolved = new ConcurrentHashMap<>();

  LockServiceResolver(ListableBeanFactory beans) {
    this.beans = beans;
  }

  LockService resolve(String name) {
    return resolved.computeIfAbsent(name, this::find);
  }

  private LockService find(String name) {
    Map<String, LockService> all = beans.getBeansOfType(LockService.class);
    LockService byName = all.get(name);
    if (byName != null) {
      return byName;
    }
    List<LockService> byBackend = all.values().stream()
        .filter(service -> name.equals(service.backend())).toList();
    if (byBackend.size() == 1) {
      return byBackend.get(0);
    }
    if (byBackend.isEmpty()) {
      throw new IllegalStateException("no LockService bean named '" + name + "' or with backend '"
          + name + "'; the lock services are " + describe(all)
          + " (is writeguard." + name + "-lock.enabled false, or its backend missing?)");
    }
    throw new IllegalStateException(byBackend.size() + " LockService beans have backend '" + name
        + "': name one by its bean name, of " + all.keySet());
  }

  /**
   * The names {@link #resolve} accepts now: every backend that exactly one {@link LockService}
   * bean has, and every bean name.
   */
  Set<String> names() {
    Map<String, LockService> all = beans.getBeansOfType(LockService.class);
    Set<String> names = new TreeSet<>();
    Map<String, Long> backends = new java.util.HashMap<>();
    all.values().forEach(service -> backends.merge(service.backend(), 1L, Long::sum));
    backends.forEach((backend, count) -> {
      if (count == 1) {
        names.add(backend);
      }
    });
    names.addAll(all.keySet());
    return names;
  }

  private static String describe(Map<String, LockService> all) {
    if (all.isEmpty()) {
      return "none";
    }
    StringBuilder text = new StringBuilder();
    all.forEach((bean, service) -> text.append(text.isEmpty() ? "" : ", ")
        .append(bean).append(" (").append(service.backend()).append(')'));
    return text.toString();
  }
}
