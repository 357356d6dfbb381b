package io.writeguard.app.lab.readinfo;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.InsertManyOptions;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario;
import io.writeguard.app.lab.api.Scenario.ClientWorkload;
import io.writeguard.app.lab.api.Scenario.ScenarioRun;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.AtomicReadInfo;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.LockReadInfo;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.NaiveReadInfo;
import io.writeguard.app.lab.readinfo.ReadInfoStrategies.OptimisticReadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;

/**
 * The seed's route: users mark sub-items of a few hot documents as read
 * ({@code doc.infos[key][skey][i].read.push(userId)}). Each client is a distinct user
 * clicking random items; see {@link ReadInfoLayout} for the document and
 * {@link ReadInfoRun} for how lost marks are counted. Stateless and thread-safe.
 */
public final class ReadInfoScenario implements Scenario<ReadInfoScenario.Mark> {
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

  /**
   * Each client records the marks it had acknowledged, and verifying looks for exactly those:
   * one process's share counts on its own ({@code --processes}).
   */
  @Override
  public boolean countsPerProcess() {
    return true;
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

  /**
   * One click of the seed's route: user {@code user} marks {@code infos[key][skey][index]} of
   * document {@code docId} as read. {@code code} identifies the mark (document, item, user) in
   * the run's ledger; two clicks of the same user on the same item have the same code.
   * Immutable.
   */
  public record Mark(String docId, String key, String skey, int index, String user, long code) {
    public Mark {
      Objects.requireNonNull(docId, "docId");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(skey, "skey");
      Objects.requireNonNull(user, "user");
    }
  }

  /**
   * One strategy's run of {@code readinfo}: hands out operations across the generations of hot
   * documents and, at the end, counts exactly which acknowledged marks the documents hold.
   *
   * <p>Counting: every click is a mark no other click makes (a repeated click carries its repeat
   * in the user id), and every client records the code of each mark the server acknowledged.
   * At the end the documents are read and their marks decoded the same way; {@code expected} is
   * the number of acknowledged operations and {@code visible} the number of them whose mark is
   * in the documents. One operation, one mark, one check: a lost mark cannot be restored by a
   * later click, and the count is independent of the strategy under test. Thread-safe.
   */
  static final class ReadInfoRun implements ScenarioRun<Mark> {
    /** Operations per client per generation of hot documents (see {@link HotDocuments}). */
    static final int OPS_PER_CLIENT_PER_GENERATION = 16;

    private final MongoCollection<Document> collection;
    private final int docs;
    private final long opsPerGeneration;
    private final HotDocuments hot;
    private final AtomicLong sequence = new AtomicLong();

    ReadInfoRun(MongoCollection<Document> collection, ScenarioSettings settings) {
      this.collection = collection;
      this.docs = settings.docs();
      this.opsPerGeneration = (long) OPS_PER_CLIENT_PER_GENERATION * settings.clients();
      this.hot = new HotDocuments(collection, docs);
      hot.ensure(0);
    }

    int docs() {
      return docs;
    }

    /** The generation the next operation goes to; makes sure its documents exist. */
    long nextGeneration() {
      long generation = sequence.getAndIncrement() / opsPerGeneration;
      hot.ensure(generation);
      return generation;
    }

    @Override
    public ClientWorkload<Mark> client(int index, long seed) {
      return new ReadInfoClient(this, index, seed);
    }

    @Override
    public Verification verify(List<? extends ClientWorkload<Mark>> clients) {
      LongList all = new LongList();
      for (ClientWorkload<Mark> c : clients) {
        all.addAll(((ReadInfoClient) c).acknowledgedCodes());
      }
      long[] expected = all.sortedDistinct();
      if (expected.length != all.size()) {
        // Every operation has a code of its own; two acknowledged codes alike is a lab bug.
        throw new IllegalStateException((all.size() - expected.length)
            + " acknowledged readinfo operations share a mark code");
      }

      LongList present = new LongList();
      for (Document doc : collection.find()) {
        ReadInfoDocs.collectMarks(doc, present);
      }
      long[] visibleCodes = present.sortedDistinct();

      long visible = 0;
      for (long code : expected) {
        if (Arrays.binarySearch(visibleCodes, code) >= 0) {
          visible++;
        }
      }
      return new Verification(expected.length, visible);
    }
  }

  /**
   * One user clicking random items of the current hot documents. Every click is a mark of its
   * own: a repeated click on an item carries the repeat in its user id ({@link ReadInfoLayout}),
   * so each acknowledged operation has a code no other operation has. Keeps the codes of the
   * marks the server acknowledged. Used by one client thread; not thread-safe.
   */
  static final class ReadInfoClient implements ClientWorkload<Mark> {
    private final ReadInfoRun run;
    private final int client;
    private final SplittableRandom random;
    private final LongList acknowledged = new LongList();
    /** Clicks so far per item of the current generation (item code with client 0, repeat 0). */
    private final Map<Long, Integer> clicks = new HashMap<>();
    private long clicksGeneration = -1;

    ReadInfoClient(ReadInfoRun run, int client, long seed) {
      this.run = run;
      this.client = client;
      this.random = new SplittableRandom(seed);
    }

    @Override
    public Mark next() {
      long generation = run.nextGeneration();
      int slot = random.nextInt(run.docs());
      int key = random.nextInt(ReadInfoLayout.KEYS.size());
      int skey = random.nextInt(ReadInfoLayout.SKEYS.size());
      int index = random.nextInt(ReadInfoLayout.ITEMS_PER_LIST);
      int item = ReadInfoLayout.item(key, skey, index);
      if (generation != clicksGeneration) {
        clicks.clear(); // older generations are retired: no client clicks them again
        clicksGeneration = generation;
      }
      int repeat = clicks.merge(ReadInfoLayout.code(generation, slot, item, 0, 0), 1, Integer::sum)
          - 1;
      return new Mark(
          ReadInfoLayout.docId(generation, slot),
          ReadInfoLayout.KEYS.get(key),
          ReadInfoLayout.SKEYS.get(skey),
          index,
          ReadInfoLayout.user(client, repeat),
          ReadInfoLayout.code(generation, slot, item, client, repeat));
    }

    @Override
    public void acknowledged(Mark mark) {
      acknowledged.add(mark.code());
    }

    LongList acknowledgedCodes() {
      return acknowledged;
    }
  }

  /**
   * The run's hot documents, retired and replaced by fresh ones every {@code opsPerGeneration}
   * operations.
   *
   * <p>Why generations: each client is one user, so a document can hold at most
   * {@code 32 items x clients} marks. Left alone for a whole run, every mark would be clicked
   * many times; a mark that {@code naive} erased would be clicked again and reappear, and its
   * loss would be invisible at the end. Growing the documents instead would make every update
   * slower as the run goes on (the embedded server copies the whole document on each update),
   * so strategies would be compared on documents of different sizes. A generation gives each
   * client about 16 operations on fresh documents: repeats stay rare (but happen, as in the
   * seed), documents stay a few KB, and all clients still hit the same {@code --docs} documents
   * at any moment. An operation in flight while the generation turns finishes on its own
   * document; that dilutes contention for about one operation per client per generation.
   *
   * <p>Thread-safe. Generation {@code g + 1} is created by the first client to reach
   * generation {@code g}, before it times its operation, so clients rarely wait for an insert.
   */
  static final class HotDocuments {
    private final MongoCollection<Document> collection;
    private final int docs;
    private final ReentrantLock creating = new ReentrantLock();
    /** Generations {@code [0, created)} exist; written only under {@link #creating}. */
    private volatile long created;

    HotDocuments(MongoCollection<Document> collection, int docs) {
      this.collection = collection;
      this.docs = docs;
    }

    /** Makes sure generation {@code generation} exists, and starts on the next one. */
    void ensure(long generation) {
      long wanted = generation + 2;
      if (created >= wanted) {
        return;
      }
      if (created > generation) {
        // Ours exists; create the next one unless another client is already doing it.
        if (creating.tryLock()) {
          try {
            createUpTo(wanted);
          } finally {
            creating.unlock();
          }
        }
        return;
      }
      creating.lock();
      try {
        createUpTo(wanted);
      } finally {
        creating.unlock();
      }
    }

    private void createUpTo(long wanted) {
      while (created < wanted) {
        List<Document> batch = new ArrayList<>(docs);
        for (int slot = 0; slot < docs; slot++) {
          batch.add(ReadInfoDocs.fresh(ReadInfoLayout.docId(created, slot)));
        }
        try {
          collection.insertMany(batch, new InsertManyOptions().ordered(false));
        } catch (MongoBulkWriteException e) {
          // With --processes every process creates the generations its clients reach; a
          // document another process created first is already there, fresh or being clicked.
          if (!e.getWriteErrors().stream().allMatch(w -> w.getCode() == 11000)) {
            throw e;
          }
        }
        created = created + 1;
      }
    }
  }

  /**
   * The fixed shape of a {@code readinfo} document and the names the scenario uses.
   *
   * <pre>{@code
   * { _id: "g12-d0", version: 0L,
   *   infos: { k0: { s0: [ {read: ["u3", "u7"]}, {read: []}, {read: []}, {read: []} ],
   *                  s1: [ ... ] },
   *            k1: ..., k2: ..., k3: ... } }
   * }</pre>
   *
   * <p>4 keys x 2 skeys x 4 items = 32 items per document. Ids are {@code g<generation>-d<slot>}:
   * slot is one of the {@code --docs} hot documents, generation says which of its successive
   * incarnations (see {@link HotDocuments}).
   *
   * <p>Every click is a mark of its own, so a mark that a strategy lost cannot be restored by a
   * later click and hide the loss: client n's first click on an item marks it as user
   * {@code u<n>}, its second click on the same item of the same document as {@code u<n>r1}, its
   * third as {@code u<n>r2}, and so on.
   *
   * <p>A mark is packed into a {@code long} so a run's ledger of millions of acknowledged marks
   * stays a sorted primitive array: generation (26 bits), slot (10), item (5), client (10),
   * repeat (13).
   */
  static final class ReadInfoLayout {
    static final List<String> KEYS = List.of("k0", "k1", "k2", "k3");
    static final List<String> SKEYS = List.of("s0", "s1");
    static final int ITEMS_PER_LIST = 4;
    static final int ITEMS_PER_DOC = KEYS.size() * SKEYS.size() * ITEMS_PER_LIST;

    /** Hot documents at a time, and clients: the most the mark code has room for. */
    static final int MAX_DOCS = 1 << 10;
    static final int MAX_CLIENTS = 1 << 10;
    /** Generations the mark code has room for. */
    static final long MAX_GENERATIONS = 1L << 26;
    /**
     * Clicks of one client on one item of one document the mark code has room for. A generation
     * has {@code 16 x clients <= 16384} operations over 32 items, so a client would have to click
     * one item a quarter of all of them to run out.
     */
    static final int MAX_REPEATS = 1 << 13;

    private static final Pattern ID = Pattern.compile("g(\\d{1,10})-d(\\d{1,4})");
    private static final Pattern USER = Pattern.compile("u(\\d{1,4})(?:r(\\d{1,4}))?");

    private ReadInfoLayout() {}

    static String docId(long generation, int slot) {
      return "g" + generation + "-d" + slot;
    }

    /** The user id of client {@code client}'s click number {@code repeat + 1} on one item. */
    static String user(int client, int repeat) {
      return repeat == 0 ? "u" + client : "u" + client + "r" + repeat;
    }

    static int item(int key, int skey, int index) {
      return (key * SKEYS.size() + skey) * ITEMS_PER_LIST + index;
    }

    /**
     * The code of one mark.
     *
     * @throws IllegalStateException when the generation or the repeat is beyond the code's room
     */
    static long code(long generation, int slot, int item, int client, int repeat) {
      if (generation >= MAX_GENERATIONS || repeat >= MAX_REPEATS) {
        throw new IllegalStateException("readinfo mark code out of room: generation " + generation
            + " (max " + (MAX_GENERATIONS - 1) + "), repeat " + repeat + " (max "
            + (MAX_REPEATS - 1) + ")");
      }
      return generation << 38 | (long) slot << 28 | (long) item << 23 | (long) client << 13
          | repeat;
    }

    /** The generation and slot of a document id, or null for an id this layout never makes. */
    static long[] parseDocId(Object id) {
      if (!(id instanceof String s)) {
        return null;
      }
      Matcher m = ID.matcher(s);
      if (!m.matches()) {
        return null;
      }
      return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    /**
     * The client number and repeat of a user id, or null for an id no client makes (a leading
     * zero, a client or repeat beyond the code's room, an explicit {@code r0}).
     */
    static int[] parseUser(Object user) {
      if (!(user instanceof String s)) {
        return null;
      }
      Matcher m = USER.matcher(s);
      if (!m.matches()) {
        return null;
      }
      int client = Integer.parseInt(m.group(1));
      int repeat = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
      if (client >= MAX_CLIENTS || repeat >= MAX_REPEATS || m.group(2) != null && repeat == 0
          || !user(client, repeat).equals(s)) {
        return null;
      }
      return new int[] {client, repeat};
    }
  }

  /** Builds, changes and reads {@code readinfo} documents in memory. Stateless. */
  static final class ReadInfoDocs {
    private ReadInfoDocs() {}

    /** A document with every item unread, at version 0. */
    static Document fresh(String id) {
      Document infos = new Document();
      for (String key : ReadInfoLayout.KEYS) {
        Document skeys = new Document();
        for (String skey : ReadInfoLayout.SKEYS) {
          List<Document> items = new ArrayList<>();
          for (int i = 0; i < ReadInfoLayout.ITEMS_PER_LIST; i++) {
            items.add(new Document("read", new ArrayList<String>()));
          }
          skeys.append(skey, items);
        }
        infos.append(key, skeys);
      }
      return new Document("_id", id).append("version", 0L).append("infos", infos);
    }

    /**
     * Adds the mark's user to the item's {@code read} list of {@code doc} unless it is there,
     * as {@code $addToSet} would (the seed's {@code push} duplicated ids on a repeated click).
     *
     * @return false when the mark was already there
     * @throws IllegalStateException when {@code doc} lacks the item
     */
    static boolean markRead(Document doc, Mark mark) {
      List<Object> read = readList(doc, mark);
      if (read.contains(mark.user())) {
        return false;
      }
      read.add(mark.user());
      return true;
    }

    /**
     * The item's {@code read} list inside {@code doc} (live, not a copy).
     *
     * @throws IllegalStateException when {@code doc} lacks the item
     */
    @SuppressWarnings("unchecked")
    static List<Object> readList(Document doc, Mark mark) {
      Object infos = doc.get("infos");
      Object skeys = infos instanceof Document d ? d.get(mark.key()) : null;
      Object items = skeys instanceof Document d ? d.get(mark.skey()) : null;
      Object item = items instanceof List<?> l && mark.index() < l.size() ? l.get(mark.index()) : null;
      Object read = item instanceof Document d ? d.get("read") : null;
      if (!(read instanceof List<?>)) {
        throw new IllegalStateException("document " + doc.get("_id") + " has no list at infos."
            + mark.key() + "." + mark.skey() + "." + mark.index() + ".read");
      }
      return (List<Object>) read;
    }

    /**
     * Adds the code of every mark {@code doc} holds to {@code into}. Parts of the document the
     * layout never makes (foreign ids, users no client has) are skipped.
     */
    static void collectMarks(Document doc, LongList into) {
      long[] id = ReadInfoLayout.parseDocId(doc.get("_id"));
      if (id == null || !(doc.get("infos") instanceof Document infos)) {
        return;
      }
      for (int k = 0; k < ReadInfoLayout.KEYS.size(); k++) {
        if (!(infos.get(ReadInfoLayout.KEYS.get(k)) instanceof Document skeys)) {
          continue;
        }
        for (int s = 0; s < ReadInfoLayout.SKEYS.size(); s++) {
          if (!(skeys.get(ReadInfoLayout.SKEYS.get(s)) instanceof List<?> items)) {
            continue;
          }
          for (int i = 0; i < Math.min(items.size(), ReadInfoLayout.ITEMS_PER_LIST); i++) {
            if (!(items.get(i) instanceof Document item) || !(item.get("read") instanceof List<?> read)) {
              continue;
            }
            for (Object user : read) {
              int[] made = ReadInfoLayout.parseUser(user);
              if (made != null && id[0] < ReadInfoLayout.MAX_GENERATIONS
                  && id[1] < ReadInfoLayout.MAX_DOCS) {
                into.add(ReadInfoLayout.code(id[0], (int) id[1], ReadInfoLayout.item(k, s, i),
                    made[0], made[1]));
              }
            }
          }
        }
      }
    }
  }

  /** A growable array of longs. Not thread-safe. */
  static final class LongList {
    private long[] values = new long[256];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    void addAll(LongList other) {
      for (int i = 0; i < other.size; i++) {
        add(other.values[i]);
      }
    }

    int size() {
      return size;
    }

    /** The values sorted with duplicates removed, as a new array. */
    long[] sortedDistinct() {
      long[] copy = Arrays.copyOf(values, size);
      Arrays.sort(copy);
      int n = 0;
      for (int i = 0; i < copy.length; i++) {
        if (i == 0 || copy[i] != copy[i - 1]) {
          copy[n++] = copy[i];
        }
      }
      return Arrays.copyOf(copy, n);
    }
  }
}
