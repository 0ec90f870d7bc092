// The account's own settings on the network, for one connected session: profile (name, about,
// picture), privacy categories and their "all contacts except…" lists, the default disappearing
// timer, blocking, profile pictures and what the connected device is. Baileys' failures become
// domain errors through withTimeout, as every other operation.
import type { BinaryNode } from 'baileys';
import { errors } from '../../../errors.js';
import type { BlacklistCategory, BlacklistChange, DeviceInfo, PrivacyCategory, PrivacyValue } from './account-port.js';
import { phoneJid, targetJid, userOf } from '../../jids.js';
import { openSocket, withTimeout, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';
import type { WASocket } from '../../link/socket-config.js';

const S_WHATSAPP_NET = 's.whatsapp.net';

export async function setProfileName(session: LiveSession, name: string, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  // An app-state patch (critical_block, setting_pushName): the phone and the other devices sync it.
  await withTimeout(limit, () => sock.updateProfileName(name));
}

export async function setProfileDescription(session: LiveSession, about: string, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  await withTimeout(limit, () => sock.updateProfileStatus(about));
}

/** `image` is already decoded and bounded by the media pipeline; Baileys crops it to 640×640 JPEG. */
export async function setProfilePicture(session: LiveSession, image: Buffer, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  const me = session.me?.pn;
  if (!me) throw errors.notConnected();
  await withTimeout(limit, () => sock.updateProfilePicture(me, image));
}

export async function profilePictureUrl(session: LiveSession, phone: string, limit: CommandLimit): Promise<string | null> {
  const { sock } = openSocket(session);
  const url = await withTimeout(limit, async () => {
    try {
      return await sock.profilePictureUrl(phoneJid(phone), 'image');
    } catch (err) {
      if (noPicture(err)) return undefined;
      throw err;
    }
  });
  return url ?? null;
}

export async function setBlocked(session: LiveSession, phone: string, blocked: boolean, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  // Baileys names the contact by LID and looks it up by number (a usync query) when not known yet.
  await withTimeout(limit, () => sock.updateBlockStatus(phoneJid(phone), blocked ? 'block' : 'unblock'));
}

/**
 * One privacy category. With `contact_blacklist` the list changes ride in the same IQ as
 * `<user jid action/>` children, as WhatsApp's own clients send them (Baileys' privacyQuery has no
 * way to carry them, so the IQ is built here).
 */
export async function setPrivacy(
  session: LiveSession,
  category: PrivacyCategory,
  value: PrivacyValue,
  blacklist: readonly BlacklistChange[],
  limit: CommandLimit,
): Promise<void> {
  const { sock } = openSocket(session);
  const users: BinaryNode[] = blacklist.map((c) => ({ tag: 'user', attrs: { jid: phoneJid(c.phone), action: c.action } }));
  await withTimeout(limit, async () => {
    await sock.query({
      tag: 'iq',
      attrs: { xmlns: 'privacy', to: S_WHATSAPP_NET, type: 'set' },
      content: [{ tag: 'privacy', attrs: {}, content: [{ tag: 'category', attrs: { name: category, value }, ...(users.length > 0 ? { content: users } : {}) }] }],
    });
    // Baileys caches the settings (readMessages reads `readreceipts` from it): refresh it.
    await sock.fetchPrivacySettings(true);
  });
}

/**
 * A chat's disappearing-messages timer: in a group the setting of the group (admins only, the
 * network refuses others); in a 1:1 chat the message that changes it for both sides.
 */
export async function setChatExpiration(session: LiveSession, target: string, seconds: number, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(target);
  await withTimeout(limit, async () => {
    if (jid.endsWith('@g.us')) await sock.groupToggleEphemeral(jid, seconds);
    else await sock.sendMessage(jid, { disappearingMessagesInChat: seconds === 0 ? false : seconds });
  });
}

export async function setDefaultDisappearing(session: LiveSession, seconds: number, limit: CommandLimit): Promise<void> {
  const { sock } = openSocket(session);
  await withTimeout(limit, () => sock.updateDefaultDisappearingMode(seconds));
}

/** The "all contacts except…" list of a category, as phone numbers. */
export async function disallowedContacts(session: LiveSession, category: BlacklistCategory, limit: CommandLimit): Promise<string[]> {
  const { sock } = openSocket(session);
  const result = await withTimeout(limit, () =>
    sock.query({
      tag: 'iq',
      attrs: { xmlns: 'privacy', to: S_WHATSAPP_NET, type: 'get' },
      content: [{ tag: 'privacy', attrs: {}, content: [{ tag: 'list', attrs: { name: category, value: 'contact_blacklist' } }] }],
    }),
  );
  const list = children(children(result).find((n) => n.tag === 'privacy')).find((n) => n.tag === 'list');
  const phones: string[] = [];
  for (const user of children(list)) {
    const jid = user.attrs.pn_jid ?? user.attrs.jid;
    if (user.tag === 'user' && jid) phones.push(await session.phoneOf(jid));
  }
  return phones;
}

export async function deviceInfo(session: LiveSession, limit: CommandLimit): Promise<DeviceInfo> {
  const { sock } = openSocket(session);
  const creds = session.creds;
  const meJid = creds?.me?.id;
  if (!meJid) throw errors.notConnected();
  const own = phoneJid(userOf(meJid));
  const [imgUrl, about] = await withTimeout(limit, () => Promise.all([ownPicture(sock, own), ownAbout(sock, own)]));
  const platform = creds.platform ?? '';
  const device = /:(\d+)@/.exec(meJid)?.[1];
  return {
    phone: userOf(meJid),
    imgUrl,
    about,
    name: creds.me?.name ?? '',
    originalDevice: platform,
    sessionId: device ? Number(device) : 0,
    // WhatsApp Business phones pair as smba (Android) or smbi (iPhone).
    isBusiness: platform.startsWith('smb'),
  };
}

async function ownPicture(sock: WASocket, jid: string): Promise<string | null> {
  try {
    return (await sock.profilePictureUrl(jid, 'image')) ?? null;
  } catch (err) {
    if (noPicture(err)) return null;
    throw err;
  }
}

/** The network's `<error code=404/>` (no picture) or 401 (hidden by privacy) is an answer, not a failure (Boom keeps the code in `data`). */
function noPicture(err: unknown): boolean {
  const code = (err as { data?: unknown }).data;
  return code === 404 || code === 401;
}

async function ownAbout(sock: WASocket, jid: string): Promise<string> {
  const list = await sock.fetchStatus(jid);
  const status = (list?.[0] as { status?: { status?: string | null } } | undefined)?.status?.status;
  return status ?? '';
}

function children(node: BinaryNode | undefined): BinaryNode[] {
  return Array.isArray(node?.content) ? node.content : [];
}
