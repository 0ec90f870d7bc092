// Rows and a per-dialect runner for the store tests: every case runs on SQLite and PostgreSQL.
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '../../src/store/index.js';
import type { AccountRow, NewInstanceRow, NewMessageRow } from '../../src/store/schema.js';
import { dialects } from './databases.js';

/** Registers `name` once per dialect; each run gets a fresh, migrated database. */
export function storeTest(name: string, fn: (store: Store, dialect: 'sqlite' | 'postgres') => Promise<void>): void {
  for (const d of dialects) {
    test(`${d.name}: ${name}`, async () => {
      const t = await d.open();
      try {
        await fn(createStore(t.database), d.name);
      } finally {
        await t.dispose();
      }
    });
  }
}

export function uid(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

export function accountRow(overrides: Partial<AccountRow> = {}): AccountRow {
  return { id: uid('acc'), name: 'account', token_hash: randomBytes(32).toString('hex'), created_at: 1_700_000_000_000, ...overrides };
}

/** Stores account `acc` with two connected instances, `i1` and `i2`: for rows one instance must not see of the other. */
export async function storeTwoInstances(store: Store): Promise<void> {
  await store.accounts.create(accountRow({ id: 'acc' }));
  for (const id of ['i1', 'i2']) await store.instances.create(instanceRow('acc', { id, name: id, status: 'connected' }));
}

export function instanceRow(accountId: string, overrides: Partial<NewInstanceRow> = {}): NewInstanceRow {
  return {
    id: uid('inst'),
    account_id: accountId,
    name: 'instance',
    token_hash: randomBytes(32).toString('hex'),
    status: 'disconnected',
    status_reason: 'created',
    status_since: 1_700_000_000_000,
    phone: null,
    lid: null,
    antiban: 0,
    disable_enqueue_when_disconnected: 0,
    list_mode: 'poll',
    list_reply_hint: null,
    notify_sent_by_me: 0,
    webhook_secret: `whsec_${randomBytes(32).toString('base64')}`,
    webhook_secret_previous: null,
    created_at: 1_700_000_000_000,
    paired_at: null,
    auto_read_message: 0,
    auto_read_status: 0,
    call_reject_auto: 0,
    call_reject_message: null,
    proxy_url: null,
    proxy_enabled: 0,
    history_import: 0,
    history_days: 7,
    history_webhook: 0,
    owner_node: null,
    owner_incarnation: null,
    owner_epoch: 0,
    ...overrides,
  };
}

let counter = 0;
export function messageRow(instanceId: string, overrides: Partial<NewMessageRow> = {}): NewMessageRow {
  counter++;
  return {
    zaap_id: uid('zaap'),
    instance_id: instanceId,
    message_id: `3EB0${randomBytes(9).toString('hex').toUpperCase()}`,
    phone: '5511999990000',
    kind: 'text',
    payload: JSON.stringify({ content: { type: 'text', message: `m${counter}` } }),
    delay_message: null,
    delay_typing: null,
    state: 'queued',
    wa_status: null,
    error: null,
    created_at: 1_700_000_000_000 + counter,
    updated_at: 1_700_000_000_000 + counter,
    sent_at: null,
    scheduled_at: null,
    ...overrides,
  };
}

/** An account with one instance, the parent rows most tests need. */
export async function seedInstance(store: Store, overrides: Partial<NewInstanceRow> = {}): Promise<{ accountId: string; instanceId: string }> {
  const account = accountRow();
  await store.accounts.create(account);
  const row = instanceRow(account.id, overrides);
  await store.instances.create(row);
  return { accountId: account.id, instanceId: row.id };
}
