package io.writeguard.tx;

import java.util.Optional;

/** Opens sessions and knows whether the server can run transactions. Not API. */
interface SessionSource {

  /** Empty when transactions are supported, otherwise why not. */
  Optional<String> whyTransactionsUnsupported();

  TxSession open();
}
