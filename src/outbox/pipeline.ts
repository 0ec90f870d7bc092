// The road an event takes after the engine or the sender emits it, built in one place and read in
// the order events flow:
//   1. the engine emits what WhatsApp sent (received messages, statuses, presence, …);
//   2. a 1:1 message's sender is recorded as no stranger to the anti-ban strategy
//      (inbound-contacts.ts), before the event is handed on, so a reply sent from its webhook finds
//      the number known;
//   3. the outbox sink commits each event with its webhook deliveries (sink.ts);
//   4. after the commit, the dispatcher delivers the webhooks (dispatcher.ts) and the live event
//      stream wakes its readers, which read the committed events back from the store.
// The sender's own events (sent, failed) enter at step 3: they concern numbers it wrote to.
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { EventSink } from '../events/types.js';
import type { EventSinkWithCopies } from '../store/message-copies.js';
import { recordingInboundContacts } from './inbound-contacts.js';
import { createOutbox, type Outbox, type OutboxDeps } from './index.js';

interface EventPipelineDeps extends OutboxDeps {
  /** Where step 2 records who wrote to an instance. */
  antiban: Pick<AntibanRepo, 'recordInbound'>;
}

export interface EventPipeline {
  /** Step 1's entry: where the engine emits. */
  readonly fromEngine: EventSinkWithCopies;
  /** Step 3's entry: where the sender emits its outcomes. */
  readonly fromSender: EventSink;
  /** Steps 3 and 4: the sink, the dispatcher, the replay API and retention. */
  readonly outbox: Outbox;
}

export function createEventPipeline(deps: EventPipelineDeps): EventPipeline {
  const outbox = createOutbox(deps);
  const fromEngine = recordingInboundContacts(outbox.sink, deps.antiban, deps.clock);
  return { fromEngine, fromSender: outbox.sink, outbox };
}
