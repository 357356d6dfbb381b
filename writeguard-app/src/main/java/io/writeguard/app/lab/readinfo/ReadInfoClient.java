package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.ClientWorkload;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One user clicking random items of the current hot documents. Every click is a mark of its
 * own: a repeated click on an item carries the repeat in its user id ({@link ReadInfoLayout}),
 * so each acknowledged operation has a code no other operation has. Keeps the codes of the
 * marks the server acknowledged. Used by one client thread; not thread-safe.
 */
final class ReadInfoClient implements ClientWorkload<Mark> {
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
