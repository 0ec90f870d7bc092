// Keeps the store's copy of a business account's labels from the app-state sync: Baileys turns the
// `regular` collection's label_edit and label_jid mutations (made on the phone, on another device,
// or by this gateway: own patches are emitted too) into labels.edit / labels.association events.
// A chat association that really changes the stored state is reported as Z-API's
// CHAT_LABEL_ASSOCIATION notification; a replayed patch changes nothing and reports nothing.
// Work is chained per instance, so the API can wait for its own change to be stored.
import { randomUUID } from 'node:crypto';
import { notificationEvent, type ReceivedCallback } from '../../../events/types.js';
import type { LabelsRepo } from '../../../store/labels-repo.js';
import { groupIdOf, isGroup, userOf } from '../../jids.js';
import type { LabelEvents, SessionLabels } from '../../session-hooks.js';
import type { LiveSession } from '../../live-session.js';

/** One chat's label change, as Z-API's notificationParameters carry it. */
interface LabelAssociationParameter {
  phone: string;
  label: string;
  assigned: boolean;
}

interface LabelSyncDeps {
  labels: Pick<LabelsRepo, 'upsert' | 'remove' | 'associate'>;
  now: () => number;
}

export class LabelSync implements SessionLabels {
  /** The tail of each instance's chain (dropped once it settles, so the map stays small). */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly deps: LabelSyncDeps) {}

  engineEvents(session: LiveSession, events: LabelEvents): Promise<void> {
    const id = session.id;
    const run = (this.chains.get(id) ?? Promise.resolve()).then(() => this.apply(session, events)).catch((err: unknown) => session.failed(err, 'record label change'));
    this.chains.set(id, run);
    void run.then(() => {
      if (this.chains.get(id) === run) this.chains.delete(id);
    });
    return run;
  }

  /** Resolves once every label event handed over so far for the instance is stored (and reported). */
  async settled(instanceId: string): Promise<void> {
    await this.chains.get(instanceId);
  }

  private async apply(session: LiveSession, events: LabelEvents): Promise<void> {
    const now = this.deps.now();
    const edit = events.edit;
    if (edit?.id) {
      if (edit.deleted) await this.deps.labels.remove(session.id, edit.id);
      else await this.deps.labels.upsert(session.id, { id: edit.id, name: edit.name ?? '', color: Number(edit.color ?? 0), predefinedId: edit.predefinedId ?? null }, now);
    }
    const change = events.association;
    // Labels on single messages are not kept (Z-API has no endpoint for them).
    if (!change || change.association.type !== 'label_jid') return;
    const { chatId: jid, labelId } = change.association;
    const phone = isGroup(jid) ? groupIdOf(jid) : await session.phoneOf(jid);
    if (!phone || !labelId) return;
    const assigned = change.type === 'add';
    if (!(await this.deps.labels.associate(session.id, labelId, { chatId: phone, jid }, assigned, now))) return;
    const own = session.me ? userOf(session.me.pn) : '';
    await session.emit([labelNotification(own, [{ phone, label: labelId, assigned }], now)]);
  }
}

/** Z-API's CHAT_LABEL_ASSOCIATION: always the account's own doing (`fromMe`), on its own number. */
function labelNotification(ownPhone: string, parameters: LabelAssociationParameter[], now: number): ReceivedCallback {
  return notificationEvent({
    // No message carries a label change: the id only tells deliveries apart.
    messageId: `label-${randomUUID()}`,
    phone: ownPhone,
    fromMe: true,
    momment: now,
    notification: 'CHAT_LABEL_ASSOCIATION',
    notificationParameters: parameters,
  });
}
