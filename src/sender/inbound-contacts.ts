// Feeds the anti-ban strategy's "stranger" test from the events the engine already emits: a number
// that wrote to the instance (an incoming 1:1 ReceivedCallback) is no stranger from then on.
// It wraps the EventSink the engine emits into, so the engine needs no knowledge of the strategy.
import type { Clock } from '../clock.js';
import type { EventSink, GatewayEvent } from '../events/types.js';
import type { AntibanRepo } from '../store/antiban-repo.js';

/** Numbers recorded per instance in this process (a write per number, not per message). */
const REMEMBERED_LIMIT = 50_000;

export function recordingInboundContacts(sink: EventSink, antiban: Pick<AntibanRepo, 'recordInbound'>, clock: Clock): EventSink {
  const recorded = new Set<string>();
  return {
    async emit(instanceId: string, events: readonly GatewayEvent[]): Promise<void> {
      const phones: string[] = [];
      for (const e of events) {
        if (e.type !== 'ReceivedCallback' || e.fromMe || e.isGroup || e.notification !== undefined || !e.phone) continue;
        const key = `${instanceId}:${e.phone}`;
        if (recorded.has(key)) continue;
        phones.push(e.phone);
      }
      // Recorded before the event is handed on: a reply the user sends on that webhook finds the
      // number already known.
      if (phones.length > 0) {
        await antiban.recordInbound(instanceId, phones, clock.now());
        if (recorded.size + phones.length > REMEMBERED_LIMIT) recorded.clear();
        for (const p of phones) recorded.add(`${instanceId}:${p}`);
      }
      await sink.emit(instanceId, events);
    },
  };
}
