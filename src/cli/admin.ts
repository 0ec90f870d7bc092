// The administration commands: accounts, API keys and the audit trail. Each works on the database
// the gateway uses (also while it runs) with the store and the services it needs, never the
// engine or the HTTP server; every change is an entry of the audit trail, actor `cli`
// (docs/api-keys.md).
import { config, help, parse, UsageError } from './args.js';

export const ACCOUNTS_USAGE = `Usage: zapgate accounts <create <name> | list | rotate <id> | delete <id>>

  accounts create <name>        create an account and print {"id","name","clientToken"} (the token only now)
  accounts list                 one JSON line per account, never their tokens
  accounts rotate <id>          replace the account's Client-Token and print the new one once
  accounts delete <id>          delete the account and all its instances

Works on the database the gateway uses (ZAPGATE_DATABASE_URL or ZAPGATE_DATA_DIR), also while it runs.`;

export const KEYS_USAGE = `Usage: zapgate keys <create | list | rotate | revoke> …

  keys create <account-id> <name> --scope S [--scope S …] [--instance ID …] [--cidr RANGE …]
              [--rate-limit N] [--expires-in SECONDS]
                                create an API key; prints {"id",…,"key"} (the key only now).
                                Scopes: read, send, manage, admin
  keys list [<account-id>]      one JSON line per key, never its secret
  keys rotate <key-id> [--overlap SECONDS]
                                a new key with the same settings (printed once); the old one keeps
                                working for SECONDS (default 0)
  keys revoke <key-id>          the key stops working at once, on every node

Works on the database the gateway uses (ZAPGATE_DATABASE_URL or ZAPGATE_DATA_DIR), also while it runs.`;

export const AUDIT_USAGE = `Usage: zapgate audit verify

Re-computes the audit trail's hash chain from the database the gateway uses and prints what it
found: exit 0 when intact, 1 naming each entry that was edited, inserted or deleted.`;

/** The accounts subcommand and its one argument, checked before anything is opened. */
function parseAccounts(args: string[]): { sub: 'create' | 'list' | 'rotate' | 'delete'; arg: string | undefined } | 'help' {
  let parsed;
  try {
    parsed = parse(args, {}, ACCOUNTS_USAGE, true);
  } catch (err) {
    if (/unknown option --name\b/.test((err as Error).message)) {
      throw new UsageError('unknown option --name (the name is positional: accounts create <name>)', ACCOUNTS_USAGE);
    }
    throw err;
  }
  if (parsed.values.help) return 'help';
  const [sub, arg, ...extra] = parsed.positionals;
  if (sub !== 'create' && sub !== 'list' && sub !== 'rotate' && sub !== 'delete') {
    throw new UsageError(sub === undefined ? 'accounts needs a subcommand' : `unknown accounts subcommand: ${sub}`, ACCOUNTS_USAGE);
  }
  if (extra.length > 0 || (sub === 'list' && arg !== undefined)) throw new UsageError(`too many arguments for accounts ${sub}`, ACCOUNTS_USAGE);
  if (sub !== 'list' && (arg === undefined || arg.trim() === '')) {
    throw new UsageError(`accounts ${sub} needs ${sub === 'create' ? 'a name' : 'an account id'}`, ACCOUNTS_USAGE);
  }
  return { sub, arg };
}

/** Who the audit trail names for a change made with the command line. */
const CLI_ACTOR = { actor: 'cli', address: null, requestId: null } as const;

export async function accounts(args: string[]): Promise<number> {
  const parsed = parseAccounts(args);
  if (parsed === 'help') return help(ACCOUNTS_USAGE);
  const { sub, arg } = parsed;
  const { database, store, accounts: service, audit } = await openAdmin();
  try {
    switch (sub) {
      case 'create': {
        const a = await service.create(arg!);
        await audit.record({ accountId: a.id, ...CLI_ACTOR }, 'accounts_create', a.id, null, { name: a.name });
        console.log(JSON.stringify({ id: a.id, name: a.name, clientToken: a.clientToken }));
        return 0;
      }
      case 'list':
        for (const a of await service.list()) console.log(JSON.stringify(a));
        return 0;
      case 'rotate': {
        const a = await service.rotate(arg!);
        await audit.record({ accountId: a.id, ...CLI_ACTOR }, 'accounts_rotate', a.id, null, { clientToken: a.clientToken });
        console.log(JSON.stringify({ id: a.id, clientToken: a.clientToken }));
        return 0;
      }
      case 'delete': {
        const before = await store.accounts.find(arg!);
        await service.delete(arg!);
        await audit.record({ accountId: arg!, ...CLI_ACTOR }, 'accounts_delete', arg!, before ? { name: before.name } : null, null);
        console.log(JSON.stringify({ id: arg, deleted: true }));
        return 0;
      }
    }
  } catch (err) {
    console.error(`zapgate: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await database.close();
  }
}

/** The store and the account, key and audit services over the gateway's database: no engine, no HTTP server. */
async function openAdmin() {
  await import('dotenv/config');
  const c = await config();
  const [{ openDatabase }, { createStore }, { AccountsService }, { ApiKeysService }, { AuditService }, { systemClock }, { privateDir }] = await Promise.all([
    import('../store/database.js'),
    import('../store/index.js'),
    import('../services/accounts-service.js'),
    import('../services/api-keys-service.js'),
    import('../services/audit-service.js'),
    import('../clock.js'),
    import('../store/private-files.js'),
  ]);
  if (!c.databaseUrl) privateDir(c.dataDir);
  // The server's clock: what this command writes (a key's expiry, an audit entry's time) is read
  // against it, so a time-lapse server and its CLI share the origin (ZAPGATE_TIME_ORIGIN).
  const clock = systemClock(c.timeScale, c.timeOrigin);
  const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir, now: () => clock.now() });
  const store = createStore(database);
  return { database, store, clock, accounts: new AccountsService(store, clock), keys: new ApiKeysService(store, clock), audit: new AuditService(store, clock, c.auditRetentionDays) };
}

export async function keys(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      scope: { type: 'string', multiple: true },
      instance: { type: 'string', multiple: true },
      cidr: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      'expires-in': { type: 'string' },
      overlap: { type: 'string' },
    },
    KEYS_USAGE,
    true,
  );
  if (values.help) return help(KEYS_USAGE);
  const [sub, ...rest] = positionals;
  const count = (n: number, what: string) => {
    if (rest.length !== n) throw new UsageError(`keys ${sub} needs ${what}`, KEYS_USAGE);
  };
  const whole = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    if (!/^[0-9]+$/.test(v)) throw new UsageError(`${name} must be a whole number, got ${JSON.stringify(v)}`, KEYS_USAGE);
    return Number(v);
  };
  if (sub === 'create') {
    count(2, '<account-id> <name>');
    if (!values.scope?.length) throw new UsageError('keys create needs at least one --scope (read, send, manage, admin)', KEYS_USAGE);
  } else if (sub === 'list') {
    if (rest.length > 1) throw new UsageError('too many arguments for keys list', KEYS_USAGE);
  } else if (sub === 'rotate' || sub === 'revoke') {
    count(1, 'a key id');
  } else {
    throw new UsageError(sub === undefined ? 'keys needs a subcommand' : `unknown keys subcommand: ${sub}`, KEYS_USAGE);
  }
  const rateLimit = whole('--rate-limit', values['rate-limit']);
  const expiresIn = whole('--expires-in', values['expires-in']);
  const overlap = whole('--overlap', values.overlap) ?? 0;
  const s = await openAdmin();
  try {
    switch (sub) {
      case 'create': {
        const [accountId = '', name = ''] = rest;
        if (!(await s.store.accounts.find(accountId))) throw new Error(`no account ${accountId}`);
        const k = await s.keys.create(accountId, {
          name,
          scopes: values.scope ?? [],
          instanceIds: values.instance ?? null,
          cidrs: values.cidr ?? null,
          rateLimit: rateLimit ?? null,
          expiresAt: expiresIn === undefined ? null : s.clock.now() + expiresIn * 1000,
        });
        await s.audit.record({ accountId, ...CLI_ACTOR }, 'keys_create', k.id, null, { name: k.name, scopes: k.scopes, instanceIds: k.instanceIds, cidrs: k.cidrs, rateLimit: k.rateLimit, expiresAt: k.expiresAt });
        console.log(JSON.stringify(k));
        return 0;
      }
      case 'list':
        for (const k of await s.keys.list(rest[0] ?? null)) console.log(JSON.stringify(k));
        return 0;
      case 'rotate': {
        const r = await s.keys.rotate(null, rest[0] ?? '', overlap);
        const old = await s.keys.get(null, r.old.id);
        await s.audit.record({ accountId: old.accountId, ...CLI_ACTOR }, 'keys_rotate', r.old.id, null, { overlapSeconds: overlap, newKeyId: r.created.id });
        console.log(JSON.stringify(r.created));
        return 0;
      }
      case 'revoke': {
        const k = await s.keys.revoke(null, rest[0] ?? '');
        const full = await s.keys.get(null, k.id);
        await s.audit.record({ accountId: full.accountId, ...CLI_ACTOR }, 'keys_revoke', k.id, null, { revokedAt: k.revokedAt });
        console.log(JSON.stringify({ id: k.id, revoked: true }));
        return 0;
      }
    }
    return 2;
  } catch (err) {
    console.error(`zapgate: ${err instanceof Error ? (err as { detail?: string }).detail ?? err.message : String(err)}`);
    return 1;
  } finally {
    await s.database.close();
  }
}

export async function audit(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {}, AUDIT_USAGE, true);
  if (values.help) return help(AUDIT_USAGE);
  if (positionals[0] !== 'verify' || positionals.length > 1) {
    throw new UsageError(positionals[0] === undefined ? 'audit needs a subcommand' : positionals[0] !== 'verify' ? `unknown audit subcommand: ${positionals[0]}` : 'too many arguments for audit verify', AUDIT_USAGE);
  }
  const s = await openAdmin();
  try {
    const { entries, breaks } = await s.audit.verify();
    if (breaks.length === 0) {
      console.log(`audit trail intact: ${entries} entries`);
      return 0;
    }
    console.log(`audit trail BROKEN: ${breaks.length} problem(s) in ${entries} entries`);
    for (const b of breaks) console.log(`  entry ${b.seq}: ${b.reason}`);
    return 1;
  } finally {
    await s.database.close();
  }
}

