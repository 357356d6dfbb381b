package io.writeguard.app.readinfo;

/**
 * The seed's "mark as read": add user {@code userId} to the {@code read} list of item
 * {@code infos[key][skey][index]} of one document, with {@code $addToSet} semantics (a
 * repeated click changes nothing) and without ever creating the item. One implementation per
 * strategy ({@link MarkReadStrategies} makes them); the lab and the HTTP service share them.
 *
 * <p>Returns only when the server acknowledged the mark (or found it already there). Failures,
 * all with nothing written: {@link io.writeguard.path.InvalidPathException} (bad key, skey or
 * index), {@link NoSuchDocumentException}, {@link NoSuchItemException},
 * {@link MarkReadException} (malformed item), {@link io.writeguard.update.RetriesExhaustedException},
 * {@link io.writeguard.lock.LockTimeoutException}, {@link io.writeguard.lock.StaleLockException}
 * (lease lost on every try), {@link io.writeguard.lock.LockBackendException}; driver errors
 * reach the caller as the driver's exceptions.
 *
 * <p>Implementations are thread-safe: one instance serves every request.
 */
public interface MarkReadStrategy {

  /**
   * Marks {@code item} as read by {@code userId}.
   *
   * @throws IllegalArgumentException when {@code userId} is null or blank
   */
  MarkResult mark(ReadItem item, String userId);

  /**
   * Marks {@code infos[key][skey][index]} of document {@code docId} as read by {@code userId}.
   *
   * @throws io.writeguard.path.InvalidPathException naming a bad segment; nothing is written
   */
  default MarkResult mark(Object docId, String key, String skey, int index, String userId) {
    return mark(new ReadItem(docId, key, skey, index), userId);
  }

  /** The strategy's name, as given to {@link MarkReadStrategies#create}. */
  String name();
}
