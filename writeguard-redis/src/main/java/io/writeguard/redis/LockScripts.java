package io.writeguard.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * The three Lua scripts of the lock ({@code acquire.lua}, {@code release.lua},
 * {@code renew.lua}, kept as resources next to this class), run by EVALSHA.
 *
 * <p>The scripts are read once and loaded into the server when the service is built. A server
 * that has forgotten them (restart, failover to a replica, {@code SCRIPT FLUSH}) answers
 * NOSCRIPT; the call is then repeated once with EVAL, which also caches the script again.
 * Every call is asynchronous and goes out on the shared command connection (on Redis Cluster:
 * the connection to the master of the key's slot), so calls for one key made one after another
 * by any threads reach Redis in that order. On a cluster connection {@code SCRIPT LOAD} goes to
 * every master. Thread-safe.
 */
final class LockScripts {

  /** One script: its body and SHA-1 digest. */
  record Script(String name, String body, String sha) {}

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final Script acquire;
  private final Script release;
  private final Script renew;

  LockScripts(RedisScriptingAsyncCommands<String, String> commands) {
    this.commands = commands;
    this.acquire = read(commands, "acquire.lua");
    this.release = read(commands, "release.lua");
    this.renew = read(commands, "renew.lua");
  }

  /** SCRIPT LOAD of all three; returns when the server has them (or fails). */
  void load() throws ExecutionException, InterruptedException {
    CompletableFuture.allOf(
        commands.scriptLoad(acquire.body()).toCompletableFuture(),
        commands.scriptLoad(release.body()).toCompletableFuture(),
        commands.scriptLoad(renew.body()).toCompletableFuture()).get();
  }

  /**
   * The first token of a block of {@code block} (> 0), or minus the holder's remaining lease in
   * ms (or the time {@code owner} still yields to another owner), or 0 if it has no expiry;
   * {@code holder} is "owner:attempt"; {@code queued}: the caller waits if the key is busy.
   */
  CompletableFuture<Long> acquire(String lockKey, String holder, long leaseMillis, int block,
      String owner, boolean queued) {
    return run(acquire, new String[] {lockKey}, holder, Long.toString(leaseMillis),
        Integer.toString(block), owner, queued ? "1" : "0");
  }

  /**
   * 1 when released, 0 when the key no longer holds {@code holder}; {@code owner} yields
   * {@code yieldMillis} when another owner waited meanwhile.
   */
  CompletableFuture<Long> release(String lockKey, String holder, String channel, long keepMillis,
      String owner, long yieldMillis) {
    return run(release, new String[] {lockKey}, holder, channel, Long.toString(keepMillis),
        owner, Long.toString(yieldMillis));
  }

  /** 1 when renewed, 0 when the key no longer holds {@code value} ("owner:attempt"). */
  CompletableFuture<Long> renew(String lockKey, String value, long leaseMillis) {
    return run(renew, new String[] {lockKey}, value, Long.toString(leaseMillis));
  }

  private CompletableFuture<Long> run(Script script, String[] keys, String... args) {
    CompletionStage<Long> bySha = commands.evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args);
    return bySha.toCompletableFuture().exceptionallyCompose(error -> {
      if (unwrap(error) instanceof RedisNoScriptException) {
        CompletionStage<Long> byBody = commands.eval(script.body(), ScriptOutputType.INTEGER, keys, args);
        return byBody.toCompletableFuture();
      }
      return CompletableFuture.failedFuture(unwrap(error));
    });
  }

  static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  private static Script read(RedisScriptingAsyncCommands<String, String> commands, String name) {
    try (InputStream in = LockScripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("Lua script resource missing: io/writeguard/redis/" + name);
      }
      String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Script(name, body, commands.digest(body));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Lua script " + name, e);
    }
  }
}
