package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.mongodb.health.MongoHealthIndicator;

/**
 * Spring Boot's own MongoDB health check (it sends {@code {hello: 1}}, as mongosh 2 and the
 * Node.js driver 7 do) is UP on the embedded server the starter's tests and the README use;
 * before the server answered {@code hello}, it was DOWN for ever ("no such command", 59).
 */
class BootMongoHealthOnEmbeddedTest {

  @Test
  void bootsMongoHealthIndicatorIsUpOnTheEmbeddedServer() {
    try (MongoClient client = MongoClients.create(TestServers.mongoUri())) {
      Health health = new MongoHealthIndicator(client).health();
      assertThat(health.getStatus()).as("%s", health.getDetails()).isEqualTo(Status.UP);
    }
  }
}
