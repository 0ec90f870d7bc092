// Addresses between the API's spelling (digits, `<digits>-group`, `<digits>@lid`) and the
// network's jids. Everything reported outside the engine is a phone number or a group id.
import { errors } from '../errors.js';
import { STATUS_TARGET } from '../domain/phone.js';

const PN_SERVER = 's.whatsapp.net';

/** The jid of a queued or requested target. */
export function targetJid(phone: string): string {
  if (phone === STATUS_TARGET) return STATUS_TARGET;
  const group = /^(\d+(?:-\d+)?)-group$/.exec(phone);
  if (group) return `${group[1]}@g.us`;
  if (/^\d+@lid$/.test(phone)) return phone;
  if (/^\d+@newsletter$/.test(phone)) return phone;
  if (/^\d+$/.test(phone)) return `${phone}@${PN_SERVER}`;
  throw errors.invalidInput(`phone: cannot address ${JSON.stringify(phone)}`);
}

export function phoneJid(digits: string): string {
  return `${digits}@${PN_SERVER}`;
}

export function groupJid(groupId: string): string {
  const m = /^(\d+(?:-\d+)?)(?:-group|@g\.us)$/.exec(groupId);
  if (!m) throw errors.invalidInput('phone: must be a group id of the form <digits>-group');
  return `${m[1]}@g.us`;
}

/** `123@g.us` → `123-group`. */
export function groupIdOf(jid: string): string {
  return `${jid.split('@')[0] ?? ''}-group`;
}

export function isGroup(jid: string | null | undefined): boolean {
  return !!jid && jid.endsWith('@g.us');
}

export function isLid(jid: string | null | undefined): boolean {
  return !!jid && jid.endsWith('@lid');
}

/** The user part without device or agent: `5511…:3@s.whatsapp.net` → `5511…`. */
export function userOf(jid: string): string {
  const at = jid.indexOf('@');
  const user = at === -1 ? jid : jid.slice(0, at);
  const colon = user.indexOf(':');
  const underscore = user.indexOf('_');
  const cut = [colon, underscore].filter((i) => i !== -1);
  return cut.length > 0 ? user.slice(0, Math.min(...cut)) : user;
}

/** A jid without its device part: `55…:3@s.whatsapp.net` → `55…@s.whatsapp.net`. */
export function normalJid(jid: string): string {
  const at = jid.indexOf('@');
  return at === -1 ? jid : `${userOf(jid)}${jid.slice(at)}`;
}
