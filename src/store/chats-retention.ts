// Retention of the stored messages: by age and by count per chat, deleted in slices so a large
// sweep never holds the single SQLite writer for long.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function pruneOlderThan(db: Kysely<DB>, before: number, batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    // In slices, so a large sweep never holds the single SQLite writer for long.
    const r = await db
      .deleteFrom('chat_messages')
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('instance_id', 'chat_id', 'message_id'),
          'in',
          selectFrom('chat_messages')
            .select(['instance_id', 'chat_id', 'message_id'])
            .where('at', '<', before)
            .limit(batch)
            .$asTuple('instance_id', 'chat_id', 'message_id'),
        ),
      )
      .executeTakeFirst();
    const n = Number(r.numDeletedRows);
    total += n;
    if (n < batch) return total;
  }
}

export async function prunePerChat(db: Kysely<DB>, max: number): Promise<number> {
  const over = await db
    .selectFrom('chat_messages')
    .select(['instance_id', 'chat_id'])
    .groupBy(['instance_id', 'chat_id'])
    .having((eb) => eb.fn.countAll(), '>', max)
    .execute();
  let total = 0;
  for (const { instance_id, chat_id } of over) {
    const r = await db
      .deleteFrom('chat_messages')
      .where('instance_id', '=', instance_id)
      .where('chat_id', '=', chat_id)
      .where('message_id', 'in', (qb) =>
        qb
          .selectFrom('chat_messages')
          .select('message_id')
          .where('instance_id', '=', instance_id)
          .where('chat_id', '=', chat_id)
          .orderBy('at', 'desc')
          .orderBy('message_id', 'desc')
          // SQLite takes OFFSET only with a LIMIT.
          .limit(2_000_000_000)
          .offset(max),
      )
      .executeTakeFirst();
    total += Number(r.numDeletedRows);
  }
  return total;
}
