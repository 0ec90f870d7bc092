// The event pipeline's anti-ban step (outbox/pipeline.ts): a number that wrote to the instance (an
// incoming 1:1 ReceivedCallback) is no stranger to the anti-ban strategy from then on. It reads the
// events the engine already emits on their way to the outbox, so the engine needs no knowledge of it.
import type { Clock } from '../clock.js';
import type { GatewayEvent } from '../events/types.js';
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { EventSinkWithCopies, MessageCopies } from '../store/message-copies.js';

/** Numbers recorded per instance in this process (a write per number, not per message). */
const REMEMBERED_LIMIT = 50_000;

export function recordingInboundContacts(sink: EventSinkWithCopies, antiban: Pick<AntibanRepo, 'recordInbound'>, clock: Clock): EventSinkWithCopies {
  const recorded = new Set<string>();
  // Emits of an instance reach the sink in the order they were made, even when one waits for a
  // number to be recorded: callers hand over events without waiting for their commit.
  const tails = new Map<string, Promise<unknown>>();
  return {
    async emit(instanceId: string, events: readonly GatewayEvent[], onceKeys?: readonly (string | null)[], copies?: MessageCopies): Promise<void> {
      const phones: string[] = [];
      for (const e of events) {
        if (e.type !== 'ReceivedCallback' || e.fromMe || e.isGroup || e.notification !== undefined || !e.phone) continue;
        const key = `${instanceId}:${e.phone}`;
        if (recorded.has(key)) continue;
        phones.push(e.phone);
      }
      const tail = tails.get(instanceId);
      if (phones.length === 0 && !tail) return sink.emit(instanceId, events, onceKeys, copies);
      // Recorded before the event is handed on: a reply the user sends on that webhook finds the
      // number already known.
      const record = async (): Promise<void> => {
        if (phones.length === 0) return;
        await antiban.recordInbound(instanceId, phones, clock.now());
        if (recorded.size + phones.length > REMEMBERED_LIMIT) recorded.clear();
        for (const p of phones) recorded.add(`${instanceId}:${p}`);
      };
      const handedOver = (tail ?? Promise.resolve()).then(record);
      const done = handedOver.then(() => sink.emit(instanceId, events, onceKeys, copies));
      // Later emits wait for this one to be handed over (not committed).
      const next = handedOver.catch(() => undefined);
      tails.set(instanceId, next);
      void next.then(() => {
        if (tails.get(instanceId) === next) tails.delete(instanceId);
      });
      return done;
    },
  };
}
