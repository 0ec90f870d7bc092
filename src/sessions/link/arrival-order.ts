// Keeps received messages of one chat in the order they arrived, up to Baileys' decryption queue.
//
// Baileys (7.0.0-rc14, `handleMessage` in messages-recv.js) handles live message stanzas
// concurrently, and before it queues a stanza's decryption on its message mutex it may await a
// store round trip: the first stanza from a contact whose LID mapping is new stores the mapping and
// migrates the Signal session. The contact's next stanza finds the mapping, skips that, and is
// decrypted and reported first: a burst from a new contact reached the webhook out of order
// (test/e2e/receive-burst.test.ts; docs/design.md: per-chat order is kept).
//
// Here each chat's stanzas enter Baileys' handler one after the other, and the next one enters as
// soon as the previous one has queued its decryption (the mutex is first come, first served) or has
// finished without one. Only that short prelude is serialised per chat: decryptions, commits and
// other chats go on as before, and a stanza never waits for anything a later one must do.
import type { WASocket } from './socket-config.js';
import { ScopedStorage } from './tx-storage.js';

type Stanza = { attrs: { from?: string; participant?: string } };
type Listener = (node: Stanza) => unknown;

/**
 * Whose handler is running (in the async context of Baileys' handler), to release its chat's next
 * stanza. A slot of the process' one shared storage (tx-storage.ts): another AsyncLocalStorage would
 * add its copy to every promise of the process.
 */
const current = new ScopedStorage<() => void>();

/**
 * Re-registers Baileys' `CB:message` handlers behind a per-chat queue. Call right after the socket is
 * made, before anything else listens to `CB:message` (other listeners are left as they are).
 */
export function keepArrivalOrder(sock: WASocket): void {
  const ws = sock.ws as unknown as {
    listeners(event: string): Listener[];
    off(event: string, l: Listener): void;
    on(event: string, l: Listener): void;
  };
  const handlers = ws.listeners('CB:message');
  if (handlers.length === 0) throw new Error('arrival order: Baileys registered no CB:message handler (changed internals?)');
  const mutex = sock.messageMutex as unknown as { mutex: (task: () => Promise<unknown>) => Promise<unknown> };
  const enqueue = mutex.mutex.bind(mutex);
  mutex.mutex = (task) => {
    // Queued first (synchronously), then the chat's next stanza may start its prelude.
    const queued = enqueue(task);
    current.getStore()?.();
    return queued;
  };
  /** Per chat: resolves once the latest stanza handed to Baileys has queued its decryption or ended. */
  const tails = new Map<string, Promise<void>>();
  for (const handler of handlers) {
    ws.off('CB:message', handler);
    ws.on('CB:message', (node) => {
      const chat = node.attrs.from ?? '';
      const previous = tails.get(chat) ?? Promise.resolve();
      let release!: () => void;
      const entered = new Promise<void>((resolve) => (release = resolve));
      tails.set(chat, entered);
      void entered.then(() => {
        if (tails.get(chat) === entered) tails.delete(chat);
      });
      void previous.then(() =>
        current.run(release, async () => {
          try {
            await handler(node);
          } finally {
            release();
          }
        }),
      );
    });
  }
}
