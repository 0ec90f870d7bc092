// The messaging engine: what the sender hands over is sent on the instance's link (each part
// waits for its server ack), plus the messaging commands the API runs at once (presence, read
// receipts, deletions). It is the sender's MessageTransport side of the engine; content becomes
// engine messages in outgoing.ts. Failures are domain errors (engine-call.ts), a failed media
// upload a SendFailure (asSendFailure).
import { generateWAMessageFromContent, prepareWAMessageMedia, type AnyMediaMessageContent, type BinaryNode, type WAMessage, type proto } from 'baileys';
import { errors } from '../../errors.js';
import { STATUS_TARGET } from '../../domain/phone.js';
import type { DeleteMessageRequest, OutboundMessage, ReadMessageRequest } from '../port.js';
import { isGroup, phoneJid, targetJid } from '../jids.js';
import { buildParts, quotedOption } from './outgoing.js';
import { asSendFailure, carriesMedia } from './content/media-parts.js';
import type { ListSettings } from './lists.js';
import type { MediaPipeline } from './media.js';
import type { ImageContent } from './content/parts.js';
import type { LiveSession } from '../live-session.js';
import { openSocket, withTimeout, type CommandLimit } from '../engine-call.js';
import type { WASocket } from '../link/socket-config.js';

export interface MessagingEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  /** The outgoing media pipeline (address guard, limits, conversion slots). */
  media: MediaPipeline;
  /** The instance's list mode and numbered-text wording (one store read). */
  listSettings(instanceId: string): Promise<ListSettings>;
  /** Who sees the instance's status posts: the numbers it has talked to (digits), bounded. */
  statusAudience(instanceId: string): Promise<string[]>;
}

/** Kinds rendered by the instance's list settings: lists, buttons and the interactive send-kinds. */
const LIST_RENDERED = new Set(['option-list', 'button-list', 'button-actions', 'button-otp', 'button-pix', 'carousel']);
/** What WhatsApp wants beside a poll creation (Baileys adds it only on its own poll path). */
const POLL_NODES: BinaryNode[] = [{ tag: 'meta', attrs: { polltype: 'creation' } }];

export class MessagingEngine {
  constructor(private readonly deps: MessagingEngineDeps) {}

  /** Sends one queued message; resolves once the network acked every part of it. */
  async sendMessage(message: OutboundMessage): Promise<void> {
    const { session } = openSocket(this.deps.sessionOf(message.instanceId));
    // A media send holds one of the pipeline's bounded slots from download to upload.
    if (carriesMedia(message.message.content)) return this.deps.media.hold(() => this.sendParts(session, message));
    return this.sendParts(session, message);
  }

  /** Shows "typing…" / "recording audio…" to `phone`, or clears it. */
  async sendPresence(instanceId: string, phone: string, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    const { sock } = openSocket(this.deps.sessionOf(instanceId));
    await withTimeout(this.deps, () => sock.sendPresenceUpdate(state, targetJid(phone)));
  }

  /**
   * Marks a received message read (a read receipt to its sender), as Z-API's read-message does, at
   * once rather than through the queue. In groups the receipt names the sender, so the message must
   * be one the instance remembers (received in the last 14 days).
   */
  async readMessage(instanceId: string, req: ReadMessageRequest): Promise<void> {
    const { session, sock } = openSocket(this.deps.sessionOf(instanceId));
    const deps = this.deps;
    const jid = targetJid(req.phone);
    const stored = await session.memory.row(req.messageId);
    if (stored?.from_me === 1) throw errors.networkRefused('messageId: this is a message the instance sent; only received messages can be marked read');
    if (isGroup(jid) && !stored?.participant) {
      throw errors.networkRefused('messageId: unknown message; in a group its sender is needed to mark it read (messages are kept 14 days)');
    }
    const key = { remoteJid: stored?.remote_jid ?? jid, fromMe: false, id: req.messageId, ...(stored?.participant ? { participant: stored.participant } : {}) };
    await withTimeout(deps, () => sock.readMessages([key]));
  }

  /**
   * owner=true revokes our own message for everyone; owner=false revokes another participant's
   * message as group admin, or, in a 1:1 chat, deletes the message for us only (app-state patch).
   */
  async deleteMessage(instanceId: string, req: DeleteMessageRequest): Promise<void> {
    const { session, sock } = openSocket(this.deps.sessionOf(instanceId));
    const deps = this.deps;
    const jid = targetJid(req.phone);
    const stored = await session.memory.row(req.messageId);
    const remoteJid = stored?.remote_jid ?? jid;
    // A revoke of an id this instance never sent would be accepted by the network and change
    // nothing: say so instead (sent messages are remembered 14 days; WhatsApp allows revokes ~2).
    if (req.owner && !stored) throw errors.notFound('Message not found');
    if (req.owner && stored?.from_me === 0) throw errors.invalidInput('owner=true revokes your own messages: this one was received (owner=false deletes it)');
    await withTimeout(deps, async () => {
      if (req.owner) {
        await sock.sendMessage(jid, { delete: { remoteJid, fromMe: true, id: req.messageId } });
        return;
      }
      if (isGroup(jid)) {
        if (!stored?.participant) throw errors.networkRefused('unknown message: its sender is needed to revoke it as admin');
        await sock.sendMessage(jid, { delete: { remoteJid, fromMe: false, id: req.messageId, participant: stored.participant } });
        return;
      }
      const fromMe = stored ? stored.from_me === 1 : false;
      const timestamp = Math.floor((stored?.created_at ?? deps.clock.now()) / 1000);
      await sock.chatModify({ deleteForMe: { key: { remoteJid, fromMe, id: req.messageId }, timestamp, deleteMedia: false } }, remoteJid);
    });
  }

  /** The link is looked at again: it may have closed while the send waited for a media slot. */
  private async sendParts(session: LiveSession, message: OutboundMessage): Promise<void> {
    const deps = this.deps;
    const { sock } = openSocket(session);
    const jid = targetJid(message.phone);
    // Only lists and buttons depend on the instance's list settings (a store read, skipped otherwise).
    const { type } = message.message.content;
    const list: ListSettings = LIST_RENDERED.has(type) ? await deps.listSettings(session.id) : { mode: 'poll', replyHint: null };
    const parts = await buildParts(message.message, message.messageId, {
      media: deps.media,
      listMode: list.mode,
      replyHint: list.replyHint,
      quoted: (id) => session.memory.quoted(id),
      jid,
      uploadImage: (image) => uploadImage(sock, image),
      uploadLinkThumbnail: (image) => uploadImage(sock, image, 'thumbnail-link'),
      me: session.me,
      now: () => deps.clock.now(),
    });
    const quoted = message.message.statusReplyTo
      ? { quoted: await statusPost(session, message.message.statusReplyTo, jid) }
      : await quotedOption(message.message, { quoted: (id) => session.memory.quoted(id) });
    // A status post goes to the contacts listed with it (the network has no list of its own).
    const broadcast = jid === STATUS_TARGET ? { statusJidList: (await deps.statusAudience(session.id)).map(phoneJid), broadcast: true } : {};
    // The message's time is the gateway's (Baileys would take the wall clock's): our own messages
    // sort with the received ones, whose times come from the network, on the one clock.
    const sentAt = (): Date => new Date(deps.clock.now());
    for (const part of parts) {
      const acked = session.tracker.expectAck(part.messageId);
      // What Baileys threw, before withTimeout turns it into a domain error: a failed media upload
      // looks like a closed link there, and must be reported as what it is (asSendFailure).
      let engineError: unknown;
      let held: { commit(): Promise<void> } | undefined;
      try {
        await withTimeout(deps, async () => {
          let sent: WAMessage;
          const isMain = part.messageId === message.messageId;
          if ('raw' in part) {
            const me = session.me?.pn ?? '';
            sent = generateWAMessageFromContent(jid, part.raw, { userJid: me, messageId: part.messageId, timestamp: sentAt(), ...(isMain ? quoted : {}) });
            await sock.relayMessage(jid, sent.message!, { messageId: part.messageId, ...broadcast, ...(part.poll ? { additionalNodes: POLL_NODES } : {}) });
            // As sendMessage does for its own messages: the sent message is reported (fromMe,
            // fromApi, with notify-sent-by-me) and enters the stored copy like any other.
            sock.ev.emit('messages.upsert', { messages: [sent], type: 'append' });
          } else {
            const result = await sock.sendMessage(jid, part.content, { messageId: part.messageId, timestamp: sentAt(), ...broadcast, ...(isMain ? quoted : {}) }).catch((e: unknown) => {
              engineError = e;
              throw e;
            });
            if (!result) throw errors.networkRefused('the message could not be built');
            sent = result;
          }
          // Stored once acked, in the commit of the ack's status advance (same tick); readable at once.
          held = session.memory.hold(sent, part.meta);
          try {
            await acked;
          } finally {
            await held.commit();
          }
        });
      } catch (err) {
        session.tracker.forget(part.messageId);
        // A send that timed out waiting for its ack is remembered all the same (it may have left).
        await held?.commit().catch(() => {});
        // The ack promise may still reject later (socket closed): nobody is waiting for it anymore.
        acked.catch(() => {});
        const failure = asSendFailure(engineError);
        throw failure !== engineError ? failure : err;
      }
    }
  }
}

/**
 * The contact's status post a reply quotes: as received when the instance remembers it, else its
 * key alone (the contact's phone shows the reply under the post either way).
 */
async function statusPost(session: LiveSession, id: string, contactJid: string): Promise<WAMessage> {
  const known = await session.memory.quoted(id);
  if (known) return known;
  return { key: { remoteJid: STATUS_TARGET, fromMe: false, id, participant: contactJid }, message: { conversation: '' } } as WAMessage;
}

/** Uploads image content to the media host and returns the imageMessage that references it (native headers, large link previews). */
async function uploadImage(sock: WASocket, image: ImageContent, as?: 'thumbnail-link'): Promise<proto.Message.IImageMessage> {
  const m = await prepareWAMessageMedia(image as AnyMediaMessageContent, { upload: sock.waUploadToServer, ...(as ? { mediaTypeOverride: as } : {}) });
  if (!m.imageMessage) throw errors.networkRefused('image: upload failed');
  return m.imageMessage;
}

