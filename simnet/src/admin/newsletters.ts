// Admin operations on channels: read a channel as the network keeps it, create one for a contact,
// and act on it as someone other than the linked device (post, follow, invite, accept, demote, rename).
import { proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import { HttpError } from '../http-error.js';
import { ADMIN_INVITE_SECONDS, type Newsletter } from '../network/newsletters.js';
import { accountOf, acceptInvite, demote, MexError, post } from '../handlers/newsletters.js';
import type { NewsletterActionRequest, NewsletterActionResult, NewsletterInfo } from './types.js';

export class NewsletterAdmin {
  constructor(private readonly net: SimnetContext) {}

  info(jid: string): NewsletterInfo {
    const n = this.net.newsletters.any(jid);
    if (!n) throw new HttpError(404, `no such channel ${jid}`);
    return {
      jid: n.jid,
      name: n.name,
      description: n.description,
      owner: n.ownerPhone,
      admins: [...n.admins],
      followers: [...n.followers].map(([phone, muted]) => ({ phone, muted })),
      staffMuted: [...n.staffMuted],
      adminInvites: [...n.adminInvites].map(([phone, expires]) => ({ phone, expires })),
      reactionCodes: n.reactionCodes,
      inviteCode: n.inviteCode,
      creation: n.creation,
      deleted: n.deleted,
      pictureBytes: n.picture?.bytes.length ?? null,
      posts: n.posts.map((p) => {
        const m = proto.Message.decode(p.bytes);
        const media = m.imageMessage ?? m.videoMessage ?? m.audioMessage ?? m.documentMessage ?? m.stickerMessage;
        const type = Object.keys(proto.Message.toObject(m)).find((k) => k !== 'messageContextInfo') ?? 'unknown';
        const text = m.conversation ?? m.extendedTextMessage?.text ?? undefined;
        const caption = m.imageMessage?.caption ?? m.videoMessage?.caption ?? undefined;
        const where = media?.directPath ?? media?.url;
        const bytes = where ? this.net.media?.get(where) : undefined;
        return { serverId: p.serverId, id: p.id, author: p.authorPhone, t: p.t, type, ...(text ? { text } : {}), ...(caption ? { caption } : {}), ...(bytes ? { mediaBytes: bytes.length } : {}) };
      }),
    };
  }

  /** Channels the account owns, runs or follows. */
  of(phone: string): NewsletterInfo[] {
    const acc = accountOf(this.net, phone);
    return this.net.newsletters
      .live()
      .filter((n) => n.roleOf(acc.phone) !== 'GUEST')
      .map((n) => this.info(n.jid));
  }

  /** A contact's phone creates a channel. */
  create(ownerPhone: string, name: string, description = ''): NewsletterInfo {
    if (!name.trim()) throw new HttpError(400, 'name required');
    const owner = accountOf(this.net, ownerPhone);
    return this.info(this.net.newsletters.create(name, description, owner.phone).jid);
  }

  async act(req: NewsletterActionRequest): Promise<NewsletterActionResult> {
    const n = this.net.newsletters.get(req.newsletter);
    if (!n) throw new HttpError(404, `no such channel ${req.newsletter}`);
    const actor = accountOf(this.net, req.actor);
    try {
      const extra = await this.apply(n, actor, req);
      return { ...extra, newsletter: this.info(n.jid) };
    } catch (e) {
      if (e instanceof MexError) throw new HttpError(e.code, e.message);
      throw e;
    }
  }

  private async apply(n: Newsletter, actor: ReturnType<typeof accountOf>, req: NewsletterActionRequest): Promise<Omit<NewsletterActionResult, 'newsletter'>> {
    const staff = () => {
      if (!n.isStaff(actor.phone)) throw new HttpError(403, `${actor.phone} is not an admin of ${n.jid}`);
    };
    const owner = () => {
      if (n.ownerPhone !== actor.phone) throw new HttpError(403, `${actor.phone} is not the owner of ${n.jid}`);
    };
    const target = () => {
      if (!req.participant) throw new HttpError(400, 'participant required');
      return accountOf(this.net, req.participant);
    };
    switch (req.action) {
      case 'post': {
        staff();
        if (!req.text) throw new HttpError(400, 'text required');
        const bytes = Buffer.from(proto.Message.encode({ conversation: req.text }).finish());
        return post(this.net, n, actor, this.net.newId(), bytes);
      }
      case 'follow':
        if (!n.isStaff(actor.phone)) n.followers.set(actor.phone, n.followers.get(actor.phone) ?? false);
        return {};
      case 'unfollow':
        n.followers.delete(actor.phone);
        return {};
      case 'invite': {
        owner();
        const who = target();
        n.adminInvites.set(who.phone, Math.floor(this.net.now() / 1000) + ADMIN_INVITE_SECONDS);
        return {};
      }
      case 'accept':
        acceptInvite(this.net, n, actor);
        return {};
      case 'demote': {
        const who = target();
        if (who.phone !== actor.phone) owner();
        if (!n.admins.has(who.phone)) throw new HttpError(404, `${who.phone} is not an admin of ${n.jid}`);
        demote(this.net, n, actor, who);
        return {};
      }
      case 'name':
      case 'description': {
        staff();
        if (req.text === undefined) throw new HttpError(400, 'text required');
        if (req.action === 'name') n.name = req.text;
        else n.description = req.text;
        return {};
      }
      default:
        throw new HttpError(400, `unknown action ${String(req.action)}`);
    }
  }
}
