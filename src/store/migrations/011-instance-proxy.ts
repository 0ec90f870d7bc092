// 011: a proxy per instance (issue 13 item 3). WhatsApp refuses logins from many datacenter
// addresses, so an instance's WebSocket and its media uploads and downloads may go through a proxy:
// - proxy_url: `http|socks5|socks5h://[user:pass@]host:port` as validated by src/net/proxy.ts
//   (NULL: none). It holds the proxy's credentials, as the database holds webhook secrets: the
//   operator protects the database; the API and the logs only ever show it masked.
// - proxy_enabled: Z-API keeps the URL and the switch apart (PUT …/integrator/configure-proxy
//   {proxyUrl, enable}); the proxy is used when both are set. 0/1 like every other flag.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration011InstanceProxy: Migration = {
  name: '011-instance-proxy',
  async up(db: Kysely<unknown>) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await db.schema.alterTable('instances').addColumn('proxy_url', 'text').execute();
    await db.schema.alterTable('instances').addColumn('proxy_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
