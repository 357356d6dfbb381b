package io.writeguard.docs;

import java.util.List;
import java.util.Map;

/**
 * Per block (by the {@code id=NAME} of its fence): what it needs beyond {@link DocsFixture}, and
 * the check of what the text around it says. Kept here, not in the Markdown, so the docs show
 * only what a reader needs. A file's setup (imports and members every block of that file
 * uses) comes before the block's own.
 */
final class BlockSetups {
  /**
   * @param imports single-type imports (they win over the on-demand ones of {@link BlockSource})
   * @param given members of the block's class, before the block (fields with initialisers,
   *     methods, types); they may hide the fixture's
   * @param then statements after the block, in the same scope: the check
   */
  record Setup(List<String> imports, String given, String then) {
    static final Setup NONE = new Setup(List.of(), "", "");

    static Setup check(String then) {
      return new Setup(List.of(), "", then);
    }

    static Setup of(String given, String then) {
      return new Setup(List.of(), given, then);
    }

    Setup plus(Setup more) {
      List<String> all = new java.util.ArrayList<>(imports);
      all.addAll(more.imports);
      return new Setup(all, given + "\n" + more.given, then + "\n" + more.then);
    }
  }

  private BlockSetups() {}

  static Setup of(DocBlock block) {
    Setup file = FILES.getOrDefault(block.file(), Setup.NONE);
    String id = block.id();
    return id == null ? file : file.plus(SETUPS.getOrDefault(id, Setup.NONE));
  }

  /** An account {@code id} with a balance of {@code balance}, as the prose assumes. */
  private static String account(long balance) {
    return "final Object seeded = accounts.insertOne(new org.bson.Document(\"_id\", id).append(\"balance\", "
        + balance + "L).append(\"version\", 0L));";
  }

  private static final String SPRING_DOCUMENT = "org.springframework.data.mongodb.core.mapping.Document";

  /** The starter's beans, made by hand over the embedded MongoDB (no application context). */
  private static final String SPRING_BEANS = """
      final WriteGuardUpdaters updaters = new WriteGuardUpdaters(
          new org.springframework.data.mongodb.core.MongoTemplate(mongoClient, db.getName()),
          new WriteGuardProperties.Updater(), listener, new WriteGuardExceptionTranslator(),
          name -> locks, new WriteGuardProperties.Lock());
      final ReactiveWriteGuard reactive = closing(ReactiveWriteGuard.builder().threads(2).build());
      """;

  private static final String SPRING_ACCOUNT = """
      @org.springframework.data.mongodb.core.mapping.Document("accounts")
      public static class Account {
        @Id private String id;
        @Version private Long version;
        private long balance;
        public long getBalance() { return balance; }
        public void setBalance(long balance) { this.balance = balance; }
      }
      """;

  private static final String SPRING_INVOICE = """
      @org.springframework.data.mongodb.core.mapping.Document("invoices")
      public static class Invoice {
        @Id String id;
        @Version Long version;
        String status;
      }
      final Object seeded = invoicesColl.insertOne(new Document("_id", "inv-1").append("version", 0L));
      """;

  static final Map<String, Setup> FILES = Map.of(
      "docs/spring-boot.md", new Setup(List.of(
          "org.springframework.data.annotation.Id", "org.springframework.data.annotation.Version",
          "org.springframework.stereotype.Service", "org.springframework.web.bind.annotation.*",
          "org.springframework.http.*", "org.springframework.dao.*"), SPRING_BEANS, ""));

  static final Map<String, Setup> SETUPS = Map.ofEntries(
      Map.entry("readme", Setup.of("""
          final Object seeded = seed();
          Object seed() {
            docs.insertOne(new Document("_id", id).append("infos",
                new Document(key, new Document(skey, List.of(new Document("title", "t"))))));
            accounts.insertOne(new Document("_id", id).append("version", 0L));
            return invoicesColl.insertOne(new Document("_id", id).append("version", 0L));
          }
          """, """
          Document doc = docs.find(eq("_id", id)).first();
          checkEquals(List.of(userId), doc.getEmbedded(List.of("infos", key, skey), List.class)
              .get(0) instanceof Document d ? d.getList("read", String.class) : null, "userId added to read");
          checkEquals("open", accounts.find(eq("_id", id)).first().getString("status"), "status set");
          checkEquals(1L, accounts.find(eq("_id", id)).first().getLong("version"), "the library owns the version");
          checkEquals("open", invoicesColl.find(eq("_id", id)).first().getString("status"), "invoice changed under the lock");
          """)),
      Map.entry("sharded-counter", Setup.check("""
          checkEquals(380L, total, "500 in, 120 out");
          checkEquals(10, shards.size(), "ten shards");
          checkEquals(380L, shards.stream().mapToLong(Long::longValue).sum(), "the shards sum to the total");
          """)),
      Map.entry("idempotency-once", Setup.check("""
          checkEquals("ch-1", r.value(), "the charge id");
          check(r.executed(), "executed in the call that ran it");
          check(ran, "the mail ran once");
          OnceResult<String> again = once.once("charge:order-7", String.class, () -> payments.charge(order));
          checkEquals("ch-1", again.value(), "the same for every caller with this key");
          check(!again.executed(), "not executed again");
          checkEquals(1, payments.charged.size(), "one charge");
          check(!once.once("mail:welcome:42", () -> mailer.sendWelcome(user)), "a second mail does not run");
          checkEquals(1, mailer.sent.size(), "one mail");
          """)),
      Map.entry("operation-id-guard", Setup.of(account(100), """
          checkEquals(OpResult.APPLIED, r, "applied the first time");
          checkEquals(OpResult.ALREADY_APPLIED,
              guard.apply(accounts, "acct-1", gte("balance", 30), inc("balance", -30), "op-8812"),
              "ALREADY_APPLIED for the same operation id");
          checkEquals(70L, accounts.find(eq("_id", id)).first().getLong("balance"), "debited once");
          """)),
      Map.entry("deadlines-within", Setup.of(account(100), """
          checkEquals(0L, out.version(), "a mutator that changes nothing writes nothing");
          """)),
      Map.entry("locked-updater", Setup.of("""
          final String invoiceId = "inv-1";
          final Object seeded = collection.insertOne(new Document("_id", invoiceId).append("version", 0L));
          final LockService mongoLocks = super.mongoLocks;
          """, """
          checkEquals(2L, out.version(), "the fenced read (claim) and the write each raise the version");
          checkEquals("open", collection.find(eq("_id", invoiceId)).first().getString("status"), "status written");
          """)),
      Map.entry("local-lock", Setup.of("""
          final Object seeded = collection.insertOne(new Document("_id", docId).append("n", 1));
          """, """
          check(locks.tryAcquire(docId.toHexString()).isPresent(), "released after the block");
          """)),
      Map.entry("path-lock", Setup.check("""
          try (PathLockHandle again = locks.acquire(doc, item, Duration.ofMillis(10))) {
            check(again != null, "every lock released after its block");
          }
          """)),
      Map.entry("fenced-writer", Setup.of(account(500), """
          Document stored = accounts.find(eq("_id", id)).first();
          checkEquals(400L, stored.getLong("balance"), "100 taken, fenced");
          check(stored.containsKey("fence") || stored.size() > 3, "the fence raised: " + stored.toJson());
          """)),
      Map.entry("locked-accounts", Setup.of(account(500), """
          checkEquals(400L, database.getCollection("accounts").find(eq("_id", id)).first().getLong("balance"),
              "100 taken under the lock");
          """)),
      Map.entry("adaptive", Setup.of(account(0), """
          checkEquals(1, accounts.find(eq("_id", id)).first().getInteger("views"), "one update");
          """)),
      Map.entry("versioned-updater", Setup.check("""
          checkEquals(1L, out.version(), "the version it now has");
          checkEquals(1, out.attempts(), "1 unless someone else wrote in between");
          checkEquals(70L, out.document().orElseThrow().getLong("balance"), "the document as written");
          checkEquals(70L, accounts.find(eq("_id", id)).first().getLong("balance"), "stored");
          """)),
      Map.entry("version-policy", Setup.of("""
          final Object seeded = docs.insertOne(new Document("_id", id).append("n", 0).append("version", 0L));
          """, """
          Document stored = docs.find(eq("_id", id)).first();
          checkEquals(2L, stored.getLong("version"), "each atomic operator also $inc's the version");
          checkEquals(List.of("b"), stored.getList("read", String.class), "added to the set");
          checkEquals(List.of(mark), stored.getList("log", String.class), "pushed");
          """)),
      Map.entry("typed-updater", Setup.of("""
          final org.bson.codecs.configuration.CodecRegistry registry = pojoCodecs;
          """, """
          checkEquals(5L, out.value().orElseThrow().balance(), "replaced: 0 + 5");
          Account stored = accounts.find(eq("_id", "a1")).first();
          checkEquals(6L, stored.balance(), "then $inc 1");
          checkEquals(2L, stored.version(), "two writes, from version 0");
          """)),
      Map.entry("mark-read", Setup.of("""
          final Object seeded = docs.insertOne(new Document("_id", id).append("infos",
              new Document(key, new Document(skey, List.of(new Document("title", "t"))))));
          """, """
          checkEquals(1L, r.getMatchedCount(), "the item exists");
          UpdateResult again = docs.updateOne(and(eq("_id", id), exists(item.toString())),
              AtomicUpdates.addToSet(item.field("read"), userId));
          checkEquals(0L, again.getModifiedCount(), "a second click adds nothing");
          UpdateResult missing = docs.updateOne(and(eq("_id", id),
              exists(FieldPath.of("infos").field(key).field(skey).index(7).toString())),
              AtomicUpdates.addToSet(FieldPath.of("infos").field(key).field(skey).index(7).field("read"), userId));
          checkEquals(0L, missing.getMatchedCount(), "no such item: matchedCount 0");
          """)),
      Map.entry("version-audit", Setup.of("""
          final Object seeded = collection.insertMany(List.of(
              new Document("_id", 1).append("version", 0L), new Document("_id", 2),
              new Document("_id", 3).append("version", "x"), new Document("_id", 4).append("version", -1L)));
          final VersionFinding finding = first();
          VersionFinding first() {
            List<VersionFinding> all = new ArrayList<>();
            VersionAuditor.builder(collection).build().scan(all::add);
            return all.get(0);
          }
          """, """
          checkEquals(4L, read, "every document read once");
          checkEquals(3L, report.problems(), "three documents with a bad version");
          checkEquals(1L, fixed.fixed(), "fix(): the unambiguous one repaired, " + fixed);
          checkEquals(FixOutcome.CHANGED_CONCURRENTLY, one, "fix() already changed that document since it was found");
          """)),
      Map.entry("reactive", Setup.of("""
          public record Account(@BsonId String id, long balance) {}
          public record Receipt(long token) {}
          final MongoCollection<Account> accountColl = db.getCollection("typed", Account.class)
              .withCodecRegistry(pojoCodecs);
          final Object seeded = accounts.insertOne(new Document("_id", id).append("balance", 0L).append("version", 0L));
          Mono<Receipt> settle(LockHandle handle) {
            return Mono.just(new Receipt(handle.token()));
          }
          """, """
          checkEquals(5L, deposit.block().document().orElseThrow().getLong("balance"), "deposited 5");
          check(settled.block() != null, "settled under the lock");
          reactive.close();
          """)),
      Map.entry("readinfo", Setup.of("""
          final RedisLockService redisLocks = closing(RedisLockService.builder().uri(redisUri()).build());
          final Object seeded = database.getCollection("posts").insertOne(new Document("_id", docId).append("infos",
              new Document(key, new Document(skey, List.of(new Document("title", "t"))))));
          """, """
          check(r.added(), "added the first time");
          check(!marks.mark(item, userId).added(), "false for a repeated click");
          """)),
      Map.entry("redis-lock", Setup.check("""
          check(locks.tryAcquire(documentId).isPresent(), "released after the block");
          locks.close();
          """)),
      Map.entry("mint-token", Setup.check("""
          checkEquals(1L, token, "the first token of a key");
          """)),
      Map.entry("fenced-write", Setup.of("""
          final long v = 3;
          final long token = 5;
          final Object seeded = docs.insertOne(new Document("_id", id).append("version", 3L));
          """, """
          checkEquals(1L, written.getMatchedCount(), "the first fenced write");
          Document stored = docs.find(eq("_id", id)).first();
          checkEquals(5L, stored.getLong("fence"), "the document remembers the token");
          checkEquals(4L, stored.getLong("version"), "and the version rose");
          UpdateResult stale = docs.updateOne(
              and(eq("_id", id), eq("version", 4L), or(lt("fence", 4L), exists("fence", false))),
              combine(set("status", "stale"), set("fence", 4L), inc("version", 1L)));
          checkEquals(0L, stale.getMatchedCount(), "a lower token is refused");
          """)),
      Map.entry("spring-account", new Setup(List.of(SPRING_DOCUMENT), account(10), """
          checkEquals(15L, new AccountService(updaters).deposit(id, 5).getBalance(), "10 + 5");
          checkEquals(1L, accounts.find(eq("_id", id)).first().getLong("version"), "the version raised");
          """)),
      Map.entry("spring-wallet", new Setup(List.of(SPRING_DOCUMENT), """
          final Object seeded = db.getCollection("wallets").insertOne(new org.bson.Document("_id", id)
              .append("balance", 10L).append("log", List.of()).append("version", 0L));
          """, """
          checkEquals(40L, written.balance(), "10 + 30");
          checkEquals(List.of(requestId), written.log(), "the request logged");
          checkEquals(1L, written.version(), "as written");
          """)),
      Map.entry("spring-locked", Setup.of("""
          @org.springframework.data.mongodb.core.mapping.Document("accounts")
          public static class Account {
            @Id String id;
            @Version Long version;
            String status;
            Account settle() {
              status = "settled";
              return this;
            }
          }
          """ + account(0), """
          checkEquals("settled", settled.status, "settled under the lock");
          checkEquals(2L, settled.version, "the claim and the write each raise the version");
          """)),
      Map.entry("spring-lease-locked", Setup.of(SPRING_INVOICE, """
          try (LockHandle held = locks.acquire("invoice:inv-1", Duration.ofSeconds(1))) {
            settle("inv-1", held);            // what the @LeaseLocked proxy does
          }
          checkEquals("open", invoicesColl.find(eq("_id", "inv-1")).first().getString("status"), "fenced write");
          """)),
      Map.entry("spring-lease-locked-mono", Setup.of(SPRING_INVOICE + """
          final ReactivePayments payments = new ReactivePayments();
          static final class ReactivePayments {
            Mono<String> charge(Document invoice) {
              return Mono.just("ch-" + invoice.get("_id"));
            }
          }
          """, """
          try (LockHandle held = locks.acquire("invoice:inv-1", Duration.ofSeconds(1))) {
            settle("inv-1", held).block();
          }
          checkEquals("paid", invoicesColl.find(eq("_id", "inv-1")).first().getString("status"), "paid");
          """)),
      Map.entry("spring-reactive-account", new Setup(List.of(), SPRING_ACCOUNT + account(10), """
          ReactiveWriteGuardUpdaters reactiveUpdaters = new ReactiveWriteGuardUpdaters(updaters, reactive);
          checkEquals(15L, new AccountService(reactiveUpdaters).deposit(id, 5).block().getBalance(), "10 + 5");
          """)),
      Map.entry("any-strategy", Setup.of(account(0), """
          checkEquals(5L, accountsColl.find(eq("_id", id)).first().getLong("balance"), "5 added");
          check(locked != null, "the typed locked updater over the typed one");
          """)),
      Map.entry("spring-translating", Setup.of(SPRING_ACCOUNT + account(0), """
          checkEquals(5L, database.getCollection("accounts").find(eq("_id", id)).first().getLong("balance"),
              "5 added through the translating adaptive updater");
          """)),
      Map.entry("spring-status", Setup.check("""
          DataAccessStatus advice = new DataAccessStatus();
          checkEquals(HttpStatus.CONFLICT, advice.conflict(new OptimisticLockingFailureException("moved"))
              .getStatusCode(), "409 for a version that kept moving");
          ResponseEntity<String> down = advice.unavailable(new CannotAcquireLockException("busy"));
          checkEquals(HttpStatus.SERVICE_UNAVAILABLE, down.getStatusCode(), "503 for a lock not had");
          checkEquals("1", down.getHeaders().getFirst(HttpHeaders.RETRY_AFTER), "Retry-After");
          """)));
}
