// NewsletterPort over the Baileys engine: each operation runs on the instance's open session (409
// otherwise) within the command timeout. Baileys covers create, metadata, follow, mute, updates,
// demote, owner change and delete; the subscribed list, the directory, reaction settings and the
// admin invites are the same w:mex GraphQL queries WhatsApp's clients send, issued here. A channel
// picture goes through the outgoing-media pipeline, never fetched by Baileys itself.
import { getBinaryNodeChild, type BinaryNode } from 'baileys';
import { DomainError, errors } from '../../../errors.js';
import { phoneJid } from '../../jids.js';
import type { MediaPipeline } from '../../outbound/media.js';
import type { DirectoryQuery, NewsletterPort, NewsletterRole, NewsletterView } from './newsletter-port.js';
import { mediaError, sessionCommands, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';
import type { WASocket } from '../../link/socket-config.js';

interface NewsletterEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  media: MediaPipeline;
}

/** WhatsApp's query ids (WA Web's GraphQL documents) for what Baileys does not wrap, and their data paths. */
const MEX = {
  subscribed: { id: '6388546374527196', path: 'xwa2_newsletter_subscribed' },
  update: { id: '24250201037901610', path: 'xwa2_newsletter_update' },
  inviteCreate: { id: '9387141988078609', path: 'xwa2_newsletter_admin_invite_create' },
  inviteRevoke: { id: '9656078347839416', path: 'xwa2_newsletter_admin_invite_revoke' },
  inviteAccept: { id: '9580828702035549', path: 'xwa2_newsletter_admin_invite_accept' },
  directoryList: { id: '26125047313831973', path: 'xwa2_newsletters_directory_list' },
  directorySearch: { id: '26301059626252132', path: 'xwa2_newsletters_directory_search' },
} as const;

/** Where WhatsApp's media CDN serves a direct path. */
const MEDIA_HOST = 'https://mmg.whatsapp.net';

/** The NewsletterMetadata fields the network sends (WA Web's GraphQL shape). */
interface RawNewsletter {
  id?: string;
  state?: { type?: string };
  thread_metadata?: {
    creation_time?: string;
    name?: { text?: string };
    description?: { text?: string };
    invite?: string;
    subscribers_count?: string;
    verification?: string;
    picture?: { direct_path?: string } | null;
    preview?: { direct_path?: string } | null;
  };
  viewer_metadata?: { mute?: string; role?: string } | null;
}

export class NewsletterEngine implements NewsletterPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: NewsletterEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  create(instanceId: string, name: string, description: string | null): Promise<string> {
    return this.commands.run(instanceId, async (sock) => (await sock.newsletterCreate(name, description ?? undefined)).id);
  }

  delete(instanceId: string, id: string): Promise<void> {
    return this.commands.run(instanceId, (sock) => sock.newsletterDelete(id));
  }

  metadata(instanceId: string, id: string): Promise<NewsletterView> {
    return this.commands.run(instanceId, async (sock) => {
      const raw = (await sock.newsletterMetadata('jid', id).catch(notFoundAsDomain)) as RawNewsletter | null;
      if (!raw?.id) throw errors.notFound('Channel not found');
      return toView(raw);
    });
  }

  subscribed(instanceId: string): Promise<NewsletterView[]> {
    return this.commands.run(instanceId, async (sock) => {
      const list = await mex<RawNewsletter[]>(sock, MEX.subscribed, {});
      return (Array.isArray(list) ? list : []).filter((n) => n.id).map(toView);
    });
  }

  search(instanceId: string, q: DirectoryQuery): Promise<NewsletterView[]> {
    return this.commands.run(instanceId, async (sock) => {
      const filters = { country_codes: q.countryCodes };
      // A text search is the directory's search query; without text, its list of a view.
      const answer = q.searchText
        ? await mex<{ result?: RawNewsletter[] }>(sock, MEX.directorySearch, { input: { search_text: q.searchText, limit: q.limit, filters, ...(q.view ? { view: q.view } : {}) } })
        : await mex<{ result?: RawNewsletter[] }>(sock, MEX.directoryList, { input: { view: q.view ?? 'RECOMMENDED', limit: q.limit, filters } });
      return (answer?.result ?? []).filter((n) => n.id).map(toView);
    });
  }

  async follow(instanceId: string, id: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.newsletterFollow(id));
  }

  async unfollow(instanceId: string, id: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.newsletterUnfollow(id));
  }

  async mute(instanceId: string, id: string, muted: boolean): Promise<void> {
    await this.commands.run(instanceId, (sock) => (muted ? sock.newsletterMute(id) : sock.newsletterUnmute(id)));
  }

  async setName(instanceId: string, id: string, name: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.newsletterUpdateName(id, name));
  }

  async setDescription(instanceId: string, id: string, description: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.newsletterUpdateDescription(id, description));
  }

  async setPicture(instanceId: string, id: string, ref: string): Promise<void> {
    this.commands.open(instanceId);
    const image = await this.deps.media.hold(async () => {
      try {
        return (await this.deps.media.image(ref, 'pictureUrl')).data;
      } catch (err) {
        throw mediaError(err);
      }
    });
    await this.commands.run(instanceId, (sock) => sock.newsletterUpdatePicture(id, image));
  }

  async setReactionCodes(instanceId: string, id: string, codes: 'BASIC' | 'ALL'): Promise<void> {
    // Baileys' own update always sends `settings: null`: the reaction setting needs its own update.
    await this.commands.run(instanceId, (sock) => mex(sock, MEX.update, { newsletter_id: id, updates: { settings: { reaction_codes: { value: codes } } } }));
  }

  createAdminInvite(instanceId: string, id: string, phone: string): Promise<number> {
    return this.commands.run(instanceId, async (sock) => {
      const answer = await mex<{ invite_expiration_time?: string | number }>(sock, MEX.inviteCreate, { newsletter_id: id, user_id: phoneJid(phone) });
      return Number(answer?.invite_expiration_time ?? 0);
    });
  }

  async revokeAdminInvite(instanceId: string, id: string, phone: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => mex(sock, MEX.inviteRevoke, { newsletter_id: id, user_id: phoneJid(phone) }));
  }

  async acceptAdminInvite(instanceId: string, id: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => mex(sock, MEX.inviteAccept, { newsletter_id: id }));
  }

  async demote(instanceId: string, id: string, phone: string): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.newsletterDemote(id, phoneJid(phone)));
  }

  async changeOwner(instanceId: string, id: string, phone: string, quitAdmin: boolean): Promise<void> {
    await this.commands.run(instanceId, async (sock, session) => {
      await sock.newsletterChangeOwner(id, phoneJid(phone));
      // The former owner is an admin now; quitting is stepping down as one.
      const me = session.me?.pn;
      if (quitAdmin && me) await sock.newsletterDemote(id, me);
    });
  }
}

/** One w:mex query: the JSON answer under `path`, or the network's GraphQL error as a domain error. */
async function mex<T>(sock: WASocket, op: { id: string; path: string }, variables: Record<string, unknown>): Promise<T> {
  const answer = (await sock.query({
    tag: 'iq',
    attrs: { id: sock.generateMessageTag(), type: 'get', to: 's.whatsapp.net', xmlns: 'w:mex' },
    content: [{ tag: 'query', attrs: { query_id: op.id }, content: Buffer.from(JSON.stringify({ variables }), 'utf8') }],
  })) as BinaryNode;
  const result = getBinaryNodeChild(answer, 'result');
  const content = result?.content;
  if (!(content instanceof Uint8Array) && typeof content !== 'string') throw errors.networkRefused(`the network gave no answer to ${op.path}`);
  const body = JSON.parse(Buffer.from(content).toString('utf8')) as { data?: Record<string, unknown>; errors?: { message?: string; extensions?: { error_code?: number } }[] };
  const first = body.errors?.[0];
  if (first) {
    const code = first.extensions?.error_code ?? 400;
    throw errors.networkRefused(`${first.message ?? 'refused'} (${code})`);
  }
  return body.data?.[op.path] as T;
}

/** Baileys' GraphQL errors carry the network's code as the Boom status: reading an unknown channel is 404. */
function notFoundAsDomain(err: unknown): never {
  const status = (err as { output?: { statusCode?: number } } | null)?.output?.statusCode;
  if (!(err instanceof DomainError) && status === 404) throw errors.notFound('Channel not found');
  throw err;
}

const ROLES = new Set<NewsletterRole>(['OWNER', 'ADMIN', 'SUBSCRIBER', 'GUEST']);

function toView(raw: RawNewsletter): NewsletterView {
  const t = raw.thread_metadata ?? {};
  const url = (p: { direct_path?: string } | null | undefined) => (p?.direct_path ? `${MEDIA_HOST}${p.direct_path}` : null);
  const role = (raw.viewer_metadata?.role ?? 'GUEST') as NewsletterRole;
  return {
    id: raw.id ?? '',
    creationTime: Number(t.creation_time ?? 0),
    state: raw.state?.type === 'ACTIVE' ? 'ACTIVE' : 'NON_EXISTING',
    name: t.name?.text ?? '',
    description: t.description?.text ?? '',
    subscribersCount: String(t.subscribers_count ?? '0'),
    inviteLink: t.invite ? `https://whatsapp.com/channel/${t.invite}` : '',
    verification: t.verification === 'VERIFIED' ? 'VERIFIED' : 'UNVERIFIED',
    picture: url(t.picture),
    preview: url(t.preview),
    viewMetadata: { mute: raw.viewer_metadata?.mute === 'ON' ? 'ON' : 'OFF', role: ROLES.has(role) ? role : 'GUEST' },
  };
}
