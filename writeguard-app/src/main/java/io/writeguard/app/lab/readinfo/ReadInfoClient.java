package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.ClientWorkload;
import java.util.SplittableRandom;

/**
 * One user clicking random items of the current hot documents. Keeps the codes of the marks
 * the server acknowledged. Used by one client thread; not thread-safe.
 */
final class ReadInfoClient implements ClientWorkload<Mark> {
  private final ReadInfoRun run;
  private final int client;
  private final String user;
  private final SplittableRandom random;
  private final LongList acknowledged = new LongList();

  ReadInfoClient(ReadInfoRun run, int client, long seed) {
    this.run = run;
    this.client = client;
    this.user = ReadInfoLayout.user(client);
    this.random = new SplittableRandom(seed);
  }

  @Override
  public Mark next() {
    long generation = run.nextGeneration();
    int slot = random.nextInt(run.docs());
    int key = random.nextInt(ReadInfoLayout.KEYS.size());
    int skey = random.nextInt(ReadInfoLayout.SKEYS.size());
    int index = random.nextInt(ReadInfoLayout.ITEMS_PER_LIST);
    return new Mark(
        ReadInfoLayout.docId(generation, slot),
        ReadInfoLayout.KEYS.get(key),
        ReadInfoLayout.SKEYS.get(skey),
        index,
        user,
        ReadInfoLayout.code(generation, slot, ReadInfoLayout.item(key, skey, index), client));
  }

  @Override
  public void acknowledged(Mark mark) {
    acknowledged.add(mark.code());
  }

  LongList acknowledgedCodes() {
    return acknowledged;
  }
}
