// JID helpers for the two address spaces simnet serves: phone numbers (@s.whatsapp.net) and LIDs (@lid).
export const S_NET = 's.whatsapp.net';

export interface ParsedJid {
  user: string;
  device: number;
  server: string;
}

/** Parses `user[:device]@server` (agent suffixes `_n` are dropped). */
export function parseJid(jid: string | undefined): ParsedJid | null {
  if (!jid) return null;
  const at = jid.indexOf('@');
  if (at < 0) return null;
  const server = jid.slice(at + 1);
  const left = jid.slice(0, at);
  const [userAgent, dev] = left.split(':');
  const user = (userAgent ?? '').split('_')[0] ?? '';
  return { user, device: dev ? Number(dev) : 0, server };
}

export const pnJid = (phone: string, device = 0): string => `${phone}${device ? `:${device}` : ''}@${S_NET}`;
export const lidJid = (lid: string, device = 0): string => `${lid}${device ? `:${device}` : ''}@lid`;
export const isGroupJid = (jid: string | undefined): boolean => !!jid && jid.endsWith('@g.us');
/** Strips +, spaces, and any JID decoration to the bare digits. */
export const digitsOf = (s: string): string => (s.split('@')[0] ?? '').split(':')[0]!.replace(/\D/g, '');
