// Webhook URLs per instance and event kind.
import type { Kysely } from 'kysely';
import type { WebhookKind } from '../events/vocabulary.js';
import type { DB } from './schema.js';

export interface WebhookTarget {
  kind: WebhookKind;
  url: string;
  disabledReason: string | null;
}

export class WebhooksRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Sets (or with an empty url, clears) the URLs of the given kinds in one transaction. */
  async set(instanceId: string, kinds: readonly WebhookKind[], url: string, at: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const kind of kinds) {
        await trx.deleteFrom('webhooks').where('instance_id', '=', instanceId).where('kind', '=', kind).execute();
        if (url !== '') {
          await trx
            .insertInto('webhooks')
            .values({ instance_id: instanceId, kind, url, disabled_reason: null, updated_at: at })
            .execute();
        }
      }
    });
  }

  async list(instanceId: string): Promise<WebhookTarget[]> {
    const rows = await this.db.selectFrom('webhooks').selectAll().where('instance_id', '=', instanceId).execute();
    return rows.map((r) => ({ kind: r.kind, url: r.url, disabledReason: r.disabled_reason }));
  }

  async disable(instanceId: string, kind: WebhookKind, reason: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ disabled_reason: reason })
      .where('instance_id', '=', instanceId)
      .where('kind', '=', kind)
      .execute();
  }
}
