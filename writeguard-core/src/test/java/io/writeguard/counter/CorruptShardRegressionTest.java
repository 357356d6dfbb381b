package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import java.math.BigDecimal;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: a shard value that is not an integer was read as a number: shards [5, "100"]
 * totalled 5, [2.5, 2.5] totalled 4, with no error. Now each is an error naming the shard and
 * the value; an integral decimal is its integer; a total past int64 is a typed error.
 */
class CorruptShardRegressionTest {
  private static final AtomicInteger ids = new AtomicInteger();
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("CorruptShard").getCollection("counters");

  @Test
  void aStringShardIsAnErrorNamingItNotZero() {
    String id = documents(5L, "100");
    assertThatThrownBy(() -> documentsCounter().total(id))
        .isInstanceOf(CorruptShardException.class)
        .hasMessageContaining("shard 1").hasMessageContaining("\"100\"")
        .hasMessageContaining(id);
    assertThatThrownBy(() -> documentsCounter().shardValues(id))
        .isInstanceOf(CorruptShardException.class);
  }

  @Test
  void fractionalDoubleShardsAreAnErrorNotTruncated() {
    String id = fields(2.5, 2.5);
    assertThatThrownBy(() -> fieldsCounter().total(id))
        .isInstanceOf(CorruptShardException.class)
        .hasMessageContaining("shard 0").hasMessageContaining("2.5");
  }

  @Test
  void anIntegralDoubleIsAnErrorToo() {
    // Nothing in WriteGuard writes a double: someone else's code is writing the shard.
    String id = documents(3L, 4.0);
    assertThatThrownBy(() -> documentsCounter().total(id))
        .isInstanceOf(CorruptShardException.class).hasMessageContaining("shard 1")
        .hasMessageContaining("4.0");
  }

  @Test
  void nullAndFractionalOrHugeDecimalsAreErrors() {
    for (Object bad : new Object[] {null, new Decimal128(new BigDecimal("1.5")),
        new Decimal128(new BigDecimal("9223372036854775808"))}) {
      String id = documents(1L, bad);
      assertThatThrownBy(() -> documentsCounter().total(id)).as("shard value %s", bad)
          .isInstanceOf(CorruptShardException.class).hasMessageContaining("shard 1")
          .hasMessageContaining(String.valueOf(bad));
    }
  }

  @Test
  void integersOfEveryWidthAndIntegralDecimalsCount() {
    String id = documents(2, 3L, new Decimal128(new BigDecimal("4")));
    assertThat(ShardedCounter.builder(collection).layout(CounterLayout.DOCUMENTS).shards(3)
        .lockService(LocalLockService.create()).build().total(id)).isEqualTo(9);
  }

  @Test
  void aTotalPastInt64IsATypedError() {
    String id = documents(Long.MAX_VALUE, 1L);
    assertThatThrownBy(() -> documentsCounter().total(id))
        .isInstanceOf(CounterOverflowException.class).hasMessageContaining(id)
        .hasMessageContaining(Long.toString(Long.MAX_VALUE));
  }

  @Test
  void aDecrementOverACorruptShardIsRefusedWithTheSameError() {
    String id = documents(1L, "100");
    assertThatThrownBy(() -> documentsCounter().decrement(id, 5))
        .isInstanceOf(CorruptShardException.class).hasMessageContaining("shard 1");
    assertThat(collection.find(new Document("counter", id)).into(new java.util.ArrayList<>()))
        .extracting(d -> d.get("balance")).containsExactlyInAnyOrder(1L, "100");
  }

  private ShardedCounter documentsCounter() {
    return ShardedCounter.builder(collection).layout(CounterLayout.DOCUMENTS).shards(2)
        .lockService(LocalLockService.create()).build();
  }

  private ShardedCounter fieldsCounter() {
    return ShardedCounter.builder(collection).layout(CounterLayout.FIELDS).shards(2).build();
  }

  private String documents(Object... values) {
    String id = "d" + ids.incrementAndGet();
    for (int i = 0; i < values.length; i++) {
      collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
          .append("shard", i).append("balance", values[i]));
    }
    return id;
  }

  private String fields(Object... values) {
    String id = "f" + ids.incrementAndGet();
    Document doc = new Document("_id", id);
    for (int i = 0; i < values.length; i++) {
      doc.append("balance_shard_" + i, values[i]);
    }
    collection.insertOne(doc);
    return id;
  }
}
