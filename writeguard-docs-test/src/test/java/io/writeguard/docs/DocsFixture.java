package io.writeguard.docs;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.embedded.EmbeddedRedis;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.FieldPath;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.codecs.pojo.annotations.BsonId;
import org.bson.codecs.pojo.PojoCodecProvider;
import org.bson.types.ObjectId;

/**
 * What every doc block may use without declaring it: the names the prose gives the reader
 * ("{@code accounts}", "{@code id}", "{@code locks}"...). Each block is compiled as a subclass
 * of this class (see {@link BlockSource}), so these fields are in scope; a block that declares a
 * name itself shadows the field. Each block gets a fresh instance and a database of its own on
 * the shared embedded MongoDB, and its {@code run} method holds the block's statements.
 *
 * <p>The values are what the text around the blocks assumes: {@code id} is an account's
 * {@code _id} (a String), {@code docId} a document's {@code ObjectId}, {@code key}, {@code skey}
 * and {@code i} the seed's {@code infos.<key>.<skey>.<i>} item, {@code amount} 30.
 */
public abstract class DocsFixture {
  private static EmbeddedMongo mongo;
  private static EmbeddedRedis redis;
  private static MongoClient client;

  static synchronized MongoClient client() {
    if (client == null) {
      mongo = EmbeddedMongo.start();
      client = MongoClients.create(mongo.uri());
    }
    return client;
  }

  /** The embedded Redis, started the first time a block asks for it. */
  protected static synchronized String redisUri() {
    if (redis == null) {
      redis = EmbeddedRedis.start();
    }
    return redis.uri();
  }

  static synchronized void stopServers() {
    if (client != null) {
      client.close();
      mongo.close();
      client = null;
    }
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  protected final MongoClient mongoClient = client();
  protected final MongoDatabase db = freshDatabase(getClass().getSimpleName());
  protected final MongoDatabase database = db;
  protected final MongoCollection<Document> accounts = db.getCollection("accounts");
  protected final MongoCollection<Document> docs = db.getCollection("docs");
  protected final MongoCollection<Document> collection = docs;
  protected final MongoCollection<Document> coll = accounts;
  protected final MongoCollection<Document> invoicesColl = db.getCollection("invoices");
  protected final MongoCollection<Document> invColl = invoicesColl;
  protected final MongoCollection<Document> tokens = db.getCollection("tokens");

  protected final String id = "acct-1";
  protected final ObjectId docId = new ObjectId();
  protected final String documentId = "doc-1";
  protected final String key = "k0";
  protected final String skey = "s0";
  protected final int i = 0;
  protected final String indexText = "0";
  protected final String userId = "alice";
  protected final long amount = 30;
  protected final String requestId = "req-1";
  protected final String mark = "m1";
  protected final FieldPath pathA = FieldPath.of("a");
  protected final FieldPath pathB = FieldPath.of("b");

  protected final LockService locks = LocalLockService.create();
  protected final MongoLeaseLockService mongoLocks =
      MongoLeaseLockService.builder(db, "locks").build();
  protected final MongoLeaseLockService mongoLeaseLocks = mongoLocks;
  protected final WriteGuardListener listener = WriteGuardListener.NOOP;
  protected final WriteGuardListener metrics = WriteGuardListener.NOOP;
  protected final WriteGuardListener metricsListener = WriteGuardListener.NOOP;
  protected final MeterRegistry registry = new SimpleMeterRegistry();
  protected final RetryPolicy policy = RetryPolicy.builder().maxAttempts(10).build();
  protected final VersionedUpdater updater = VersionedUpdater.builder(accounts).build();
  protected final VersionedUpdater versionedUpdater = updater;
  protected final Mutator mutator = current -> Mutation.none();
  /** Codecs for records and POJOs, as an application using the typed updaters sets up. */
  protected final CodecRegistry pojoCodecs = CodecRegistries.fromRegistries(
      com.mongodb.MongoClientSettings.getDefaultCodecRegistry(),
      CodecRegistries.fromProviders(PojoCodecProvider.builder().automatic(true).build()));

  /** An application's record, mapped by the codecs above ({@code typed} updaters). */
  public record Account(@BsonId String id, long balance, Long version) {}

  protected final MongoCollection<Document> accountsColl = accounts;
  protected final MongoCollection<Account> accountColl =
      db.getCollection("accounts", Account.class).withCodecRegistry(pojoCodecs);

  /** The seed's "compute the next status" step the README and lock docs call. */
  protected String next(Document current) {
    return current.getString("status") == null ? "open" : current.getString("status") + "+";
  }

  /** A change made to a private copy, as the lock examples do. */
  protected Document change(Document doc) {
    return new Document(doc).append("status", next(doc));
  }

  /** An application's exception for a missing document. */
  protected static final class NotFound extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotFound() {
      super("not found");
    }
  }

  /** An application's refusal, thrown from inside a mutator. */
  protected static final class InsufficientFunds extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InsufficientFunds(Object id) {
      super("insufficient funds in " + id);
    }
  }

  /** The payment side effect of the idempotency example: counts its calls. */
  protected final Payments payments = new Payments();
  protected final String order = "order-7";
  protected final Mailer mailer = new Mailer();
  protected final String user = "user-42";

  /** Counts charges, so a check can tell a side effect ran once. */
  public static final class Payments {
    public final List<String> charged = new ArrayList<>();

    public String charge(String order) {
      charged.add(order);
      return "ch-" + charged.size();
    }
  }

  /** Counts mails. */
  public static final class Mailer {
    public final List<String> sent = new ArrayList<>();

    public void sendWelcome(String user) {
      sent.add(user);
    }
  }

  private MongoDatabase freshDatabase(String name) {
    MongoDatabase fresh = client().getDatabase("docs_" + name);
    fresh.drop();
    return fresh;
  }

  /** Fails the block with {@code what} when {@code holds} is false (used by the checks). */
  protected static void check(boolean holds, String what) {
    if (!holds) {
      throw new AssertionError("the text says: " + what);
    }
  }

  /** Fails unless {@code actual} equals {@code expected}. */
  protected static void checkEquals(Object expected, Object actual, String what) {
    if (!java.util.Objects.equals(expected, actual)) {
      throw new AssertionError("the text says: " + what + "; expected " + expected + " but was "
          + actual);
    }
  }

  /** The block's statements, then its check. */
  protected abstract void run() throws Throwable;

  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** Closes {@code resource} after the block (executors, clients a setup makes). */
  protected <T extends AutoCloseable> T closing(T resource) {
    toClose.add(resource);
    return resource;
  }

  /** Runs the block; closes what the fixture and the setup made. */
  public final void execute() throws Throwable {
    try {
      run();
    } finally {
      for (AutoCloseable c : toClose) {
        c.close();
      }
      mongoLocks.close();
    }
  }
}
