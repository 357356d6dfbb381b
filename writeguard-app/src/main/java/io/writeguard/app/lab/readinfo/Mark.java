package io.writeguard.app.lab.readinfo;

import java.util.Objects;

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
