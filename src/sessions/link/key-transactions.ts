// One key-store transaction at a time per socket. Baileys runs each send in a transaction keyed by
// the account's id and each decryption in one keyed by the sender's jid: both read the contact's
// session record into their own cache at their first read and commit their copy when they end, so
// a send and a decryption with the same contact that overlap lose one update (the later commit
// wins). The ratchet step the decryption made vanishes under the send's commit, and the contact's
// next messages fail with "No matching sessions found" while ours fail the same way at the
// contact (test/e2e/two-way-kill9.test.ts under load: 35 of 56 sends and 3 received messages in one
// run). Serialising them costs little: a socket's sends already go one at a time.

/** The transaction call of Baileys' key store (SignalKeyStoreWithTransaction). */
interface TransactionalKeys {
  transaction<T>(exec: () => Promise<T>, key: string): Promise<T>;
}

/** Wraps `transaction` in place (Baileys' layers and its signal repository share this object). */
export function oneKeyTransactionAtATime(keys: TransactionalKeys): void {
  const transaction = keys.transaction.bind(keys);
  // Nested calls still join the running transaction: Baileys looks for one before its mutex.
  keys.transaction = <T>(exec: () => Promise<T>) => transaction(exec, 'socket');
}
