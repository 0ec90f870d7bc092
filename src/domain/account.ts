// An account as the gateway's use cases see it: who owns instances. The store maps its row to this
// once (store/accounts-repo.ts, toAccount).

export interface Account {
  readonly id: string;
  readonly name: string;
  /** Hash of the Client-Token (the token itself is never stored). */
  readonly tokenHash: string;
  /** ms since the epoch. */
  readonly createdAt: number;
}
