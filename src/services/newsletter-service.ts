// Channels (Z-API's newsletter tag): create and delete, metadata, the account's channels, the
// directory search, follow/mute, name/description/picture/reaction settings, and the admin
// invites (sent as a message through the queue), demotion and ownership transfer. Input is checked
// before anything is sent; the network's refusals are reported as they are.
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { DirectoryView, NewsletterPort, NewsletterView } from '../sessions/families/newsletter/newsletter-port.js';
import type { SessionsPort } from '../sessions/port.js';
import type { Instance } from '../domain/instance.js';
import type { MessagesService, SendResult } from './messages-service.js';

/** WhatsApp's limits on a channel's name and description. */
export const MAX_NAME = 100;
export const MAX_DESCRIPTION = 2048;
export const MAX_SEARCH_LIMIT = 100;
export const DIRECTORY_VIEWS = ['RECOMMENDED', 'TRENDING', 'POPULAR', 'NEW'] as const;

const CHANNEL_ID = /^\d{5,40}@newsletter$/;

interface SearchInput {
  limit: number;
  view?: string;
  filters: { countryCodes?: string[] };
  searchText?: string;
}

export class NewsletterService {
  constructor(
    private readonly port: NewsletterPort,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly messages: Pick<MessagesService, 'send'>,
  ) {}

  async create(instanceId: string, name: string, description?: string): Promise<{ id: string }> {
    const clean = name.trim();
    if (!clean) throw errors.invalidInput('name: must not be blank');
    this.connected(instanceId);
    return { id: await this.port.create(instanceId, clean, description?.trim() || null) };
  }

  async delete(instanceId: string, rawId: string): Promise<void> {
    await this.port.delete(instanceId, this.channel(instanceId, rawId, 'id'));
  }

  metadata(instanceId: string, rawId: string): Promise<NewsletterView> {
    return this.port.metadata(instanceId, this.channel(instanceId, rawId, 'newsletterId'));
  }

  list(instanceId: string): Promise<NewsletterView[]> {
    this.connected(instanceId);
    return this.port.subscribed(instanceId);
  }

  search(instanceId: string, input: SearchInput): Promise<NewsletterView[]> {
    if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_SEARCH_LIMIT) throw errors.invalidInput(`limit: must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
    const view = input.view?.toUpperCase();
    if (view !== undefined && !(DIRECTORY_VIEWS as readonly string[]).includes(view)) throw errors.invalidInput(`view: must be one of ${DIRECTORY_VIEWS.join(', ')}`);
    const countryCodes = (input.filters.countryCodes ?? []).map((c, i) => {
      if (!/^[A-Za-z]{2}$/.test(c)) throw errors.invalidInput(`filters.countryCodes[${i}]: must be an ISO country code of two letters`);
      return c.toUpperCase();
    });
    this.connected(instanceId);
    const searchText = input.searchText?.trim();
    return this.port.search(instanceId, { limit: input.limit, countryCodes, ...(view ? { view: view as DirectoryView } : {}), ...(searchText ? { searchText } : {}) });
  }

  async follow(instanceId: string, rawId: string, follow: boolean): Promise<void> {
    const id = this.channel(instanceId, rawId, 'id');
    await (follow ? this.port.follow(instanceId, id) : this.port.unfollow(instanceId, id));
  }

  async mute(instanceId: string, rawId: string, muted: boolean): Promise<void> {
    await this.port.mute(instanceId, this.channel(instanceId, rawId, 'id'), muted);
  }

  async setName(instanceId: string, rawId: string, name: string): Promise<void> {
    const clean = name.trim();
    if (!clean) throw errors.invalidInput('name: must not be blank');
    await this.port.setName(instanceId, this.channel(instanceId, rawId, 'id'), clean);
  }

  async setDescription(instanceId: string, rawId: string, description: string): Promise<void> {
    await this.port.setDescription(instanceId, this.channel(instanceId, rawId, 'id'), description.trim());
  }

  async setPicture(instanceId: string, rawId: string, ref: string): Promise<void> {
    const value = ref.trim();
    if (!/^(https?:\/\/|data:)/i.test(value)) throw errors.invalidInput('pictureUrl: must be an https URL or a data URI of an image');
    await this.port.setPicture(instanceId, this.channel(instanceId, rawId, 'id'), value);
  }

  async settings(instanceId: string, rawId: string, reactionCodes: string): Promise<void> {
    const codes = reactionCodes.trim().toUpperCase();
    if (codes !== 'BASIC' && codes !== 'ALL') throw errors.invalidInput('reactionCodes: must be "basic" or "all"');
    await this.port.setReactionCodes(instanceId, this.channel(instanceId, rawId, 'newsletterId'), codes);
  }

  async acceptAdminInvite(instanceId: string, rawId: string): Promise<void> {
    await this.port.acceptAdminInvite(instanceId, this.channel(instanceId, rawId, 'newsletterId'));
  }

  async revokeAdminInvite(instanceId: string, rawId: string, phone: string): Promise<void> {
    const who = parsePhone(phone);
    await this.port.revokeAdminInvite(instanceId, this.channel(instanceId, rawId, 'newsletterId'), who);
  }

  async removeAdmin(instanceId: string, rawId: string, phone: string): Promise<void> {
    const who = parsePhone(phone);
    await this.port.demote(instanceId, this.channel(instanceId, rawId, 'newsletterId'), who);
  }

  async transferOwnership(instanceId: string, rawId: string, phone: string, quitAdmin: boolean): Promise<void> {
    const who = parsePhone(phone);
    await this.port.changeOwner(instanceId, this.channel(instanceId, rawId, 'newsletterId'), who, quitAdmin);
  }

  /**
   * send-newsletter-admin-invite: the invite is made on the network (owner only) at once, then the
   * invitation message goes to the person through the queue like any other message.
   */
  async sendAdminInvite(instance: Instance, phone: string, invite: { newsletterId: string; caption: string }): Promise<SendResult> {
    const who = parsePhone(phone);
    const caption = invite.caption.trim();
    if (!caption) throw errors.invalidInput('adminInviteMessage.caption: must not be blank');
    const id = this.channel(instance.id, invite.newsletterId, 'adminInviteMessage.newsletterId');
    const meta = await this.port.metadata(instance.id, id);
    const expiration = await this.port.createAdminInvite(instance.id, id, who);
    return this.messages.send(instance, { phone: who }, { type: 'newsletter-admin-invite', newsletterId: id, newsletterName: meta.name, caption, inviteExpiration: expiration });
  }

  /** A `<digits>@newsletter` id (checked before the connection, so bad input is 400 either way). */
  private channel(instanceId: string, raw: string, field: string): string {
    const id = raw.trim();
    if (!CHANNEL_ID.test(id)) throw errors.invalidInput(`${field}: must be a channel id <digits>@newsletter`);
    this.connected(instanceId);
    return id;
  }

  private connected(instanceId: string): void {
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
  }
}
