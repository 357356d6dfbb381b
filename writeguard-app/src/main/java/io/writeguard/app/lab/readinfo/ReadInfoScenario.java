package io.writeguard.app.lab.readinfo;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.LabStrategy;
import io.writeguard.app.lab.Scenario;
import io.writeguard.app.lab.ScenarioEntry;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.ScenarioSettings;
import java.util.List;
import org.bson.Document;

/**
 * The seed's route: users mark sub-items of a few hot documents as read
 * ({@code doc.infos[key][skey][i].read.push(userId)}). Each client is a distinct user
 * clicking random items; see {@link ReadInfoLayout} for the document and
 * {@link ReadInfoRun} for how lost marks are counted. Stateless and thread-safe.
 */
public final class ReadInfoScenario implements Scenario<Mark> {
  public static final String NAME = "readinfo";

  /** The scenario with its strategies, in the order the lab runs them. */
  public static ScenarioEntry<Mark> entry() {
    return new ScenarioEntry<>(new ReadInfoScenario(), List.of(
        new LabStrategy<>("naive", true,
            "find, change in Java, replaceOne the whole document (the seed's bug)",
            NaiveReadInfo::new),
        new LabStrategy<>("atomic", false,
            "one $addToSet on infos.<key>.<skey>.<i>.read: no read, no retry",
            AtomicReadInfo::new),
        new LabStrategy<>("optimistic", false,
            "read, compute the new list, $set it if the version is unchanged; retry with backoff",
            OptimisticReadInfo::new),
        new LabStrategy<>("local-lock", false,
            "in-process lock per document, find, change, replaceOne (the seed's fix; one"
                + " process only)",
            LockReadInfo::local),
        new LabStrategy<>("mongo-lock", false,
            "MongoDB lease lock per document, fenced claim and replaceOne",
            LockReadInfo::mongo),
        new LabStrategy<>("redis-lock", false,
            "Redis lease lock per document, fenced claim and replaceOne",
            LockReadInfo::redis, true),
        new LabStrategy<>("adaptive", false,
            "optimistic; a document whose conflicts pass 10% queues on an in-process lock",
            LockReadInfo::adaptive)));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "users mark sub-items of hot documents as read";
  }

  @Override
  public ScenarioRun<Mark> start(MongoCollection<Document> collection, ScenarioSettings settings) {
    if (settings.docs() > ReadInfoLayout.MAX_DOCS) {
      throw new IllegalArgumentException(
          "docs must be <= " + ReadInfoLayout.MAX_DOCS + ", was " + settings.docs());
    }
    if (settings.clients() > ReadInfoLayout.MAX_CLIENTS) {
      throw new IllegalArgumentException(
          "clients must be <= " + ReadInfoLayout.MAX_CLIENTS + ", was " + settings.clients());
    }
    return new ReadInfoRun(collection, settings);
  }
}
