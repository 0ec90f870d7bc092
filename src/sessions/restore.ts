// Restore at start: every paired instance reconnects, a bounded number at once, each with a little
// jitter so a fleet does not hit the network in lockstep.
import type { Clock } from '../clock.js';

export interface RestoreOptions {
  concurrency: number;
  clock: Clock;
  /** True once the manager closes: the instances not started yet stay down. */
  stopped(): boolean;
  /** Starts one instance's session and waits until it is open or has stopped trying for now. */
  restore(instanceId: string): Promise<void>;
  failed(err: unknown, what: string): void;
}

export async function restoreEach(instanceIds: readonly string[], options: RestoreOptions): Promise<void> {
  const queue = [...instanceIds];
  const workers = Math.max(1, Math.min(options.concurrency, queue.length));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let id = queue.shift(); id !== undefined && !options.stopped(); id = queue.shift()) {
        // A little jitter so a fleet does not hit the network in lockstep.
        await options.clock.sleep(Math.random() * 200);
        try {
          await options.restore(id);
        } catch (err) {
          options.failed(err, `restore ${id}`);
        }
      }
    }),
  );
}
