package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code -bounded} contenders bound every MongoDB round trip they make, and their plain
 * twins none on the document: every command a bounded contender sends while it adds its bits
 * carries {@code maxTimeMS} (the driver's mark of an operation run with a client-side timeout),
 * and no read or write of the hot document by a plain one does (the MongoDB lease lock bounds
 * its own take and release by the wait in both). Both keep every bit they acknowledge.
 */
class BoundedContendersTest {
  private static final int OPS = 5;

  /** A command as sent: the collection it names first, its text, and whether it was timed. */
  private record Sent(String collection, String json, boolean timed) {}

  @ParameterizedTest
  @CsvSource({
      "naive-bounded, true", "naive, false",
      "mongo-lock-by-hand-bounded, true", "mongo-lock-by-hand, false",
      "redis-lock-by-hand-bounded, true", "redis-lock-by-hand, false"})
  void boundedContendersBoundEveryRoundTripAndThePlainOnesNone(String name, boolean bounded) {
    // Read in the listener: the event's command lives in the driver's buffer only until then.
    List<Sent> sent = new CopyOnWriteArrayList<>();
    CommandListener recorder = new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent event) {
        BsonValue first = event.getCommand().values().iterator().next();
        sent.add(new Sent(first.isString() ? first.asString().getValue() : "",
            event.getCommand().toJson(), event.getCommand().containsKey("maxTimeMS")));
      }
    };
    String hot = "hot_" + new ObjectId();
    try (Backends backends = Backends.connect(TestServers.mongoUri(), recorder, hot,
        TestServers.redisUri())) {
      ObjectId docId = new ObjectId();
      backends.hot().insertOne(HotDocument.fresh(docId));
      try (Contender contender = Contenders.create(name, backends)) {
        sent.clear();
        for (int op = 0; op < OPS; op++) {
          contender.add(docId, op);
        }
        List<Sent> made = bounded ? List.copyOf(sent)
            : sent.stream().filter(c -> c.collection.equals(hot)).toList();

        // a read and a write of the document per bit (and the lease lock's commands)
        assertThat(made).hasSizeGreaterThanOrEqualTo(2 * OPS);
        assertThat(made).allSatisfy(command -> assertThat(command.timed)
            .as("%s sent by %s", command.json, name).isEqualTo(bounded));
      }
      assertThat(HotDocument.kept(backends.hot().find(eq("_id", docId)).first()).cardinality())
          .isEqualTo(OPS);
    }
  }
}
