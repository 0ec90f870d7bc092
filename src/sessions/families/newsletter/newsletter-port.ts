// What services may ask of the engine to run WhatsApp channels (newsletters) as WhatsApp's clients
// do: create and delete, read one or the ones the account is in, search the directory, follow and
// mute, edit name/description/picture/reactions, and the admin invites, demotion and ownership.
// The Baileys engine implements it in newsletter-engine.ts.
import { errors } from '../../../errors.js';

export type NewsletterRole = 'OWNER' | 'ADMIN' | 'SUBSCRIBER' | 'GUEST';

/** A channel as Z-API answers it (metadata, list and search rows). */
export interface NewsletterView {
  /** `<digits>@newsletter` */
  id: string;
  /** seconds */
  creationTime: number;
  state: 'ACTIVE' | 'NON_EXISTING';
  name: string;
  description: string;
  subscribersCount: string;
  inviteLink: string;
  verification: 'VERIFIED' | 'UNVERIFIED';
  picture: string | null;
  preview: string | null;
  viewMetadata: { mute: 'ON' | 'OFF'; role: NewsletterRole };
}

export type DirectoryView = 'RECOMMENDED' | 'TRENDING' | 'POPULAR' | 'NEW';

export interface DirectoryQuery {
  limit: number;
  view?: DirectoryView;
  countryCodes: string[];
  searchText?: string;
}

export interface NewsletterPort {
  /** Answers the new channel's `<digits>@newsletter`. */
  create(instanceId: string, name: string, description: string | null): Promise<string>;
  delete(instanceId: string, id: string): Promise<void>;
  metadata(instanceId: string, id: string): Promise<NewsletterView>;
  /** The channels the account owns, runs or follows. */
  subscribed(instanceId: string): Promise<NewsletterView[]>;
  search(instanceId: string, query: DirectoryQuery): Promise<NewsletterView[]>;
  follow(instanceId: string, id: string): Promise<void>;
  unfollow(instanceId: string, id: string): Promise<void>;
  mute(instanceId: string, id: string, muted: boolean): Promise<void>;
  setName(instanceId: string, id: string, name: string): Promise<void>;
  setDescription(instanceId: string, id: string, description: string): Promise<void>;
  /** `ref`: an https URL or a data URI, through the outgoing-media pipeline. */
  setPicture(instanceId: string, id: string, ref: string): Promise<void>;
  setReactionCodes(instanceId: string, id: string, codes: 'BASIC' | 'ALL'): Promise<void>;
  /** Invites `phone` to be an admin (owner only); answers when the invite expires (seconds). */
  createAdminInvite(instanceId: string, id: string, phone: string): Promise<number>;
  revokeAdminInvite(instanceId: string, id: string, phone: string): Promise<void>;
  acceptAdminInvite(instanceId: string, id: string): Promise<void>;
  /** Takes admin rights from `phone` (the owner), or gives up the account's own (`phone` = its number). */
  demote(instanceId: string, id: string, phone: string): Promise<void>;
  /** Makes the admin `phone` the owner; the account stays an admin unless `quitAdmin`. */
  changeOwner(instanceId: string, id: string, phone: string, quitAdmin: boolean): Promise<void>;
}

/** No engine: nothing is connected. */
export function offlineNewsletters(): NewsletterPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    create: refuse,
    delete: refuse,
    metadata: refuse,
    subscribed: refuse,
    search: refuse,
    follow: refuse,
    unfollow: refuse,
    mute: refuse,
    setName: refuse,
    setDescription: refuse,
    setPicture: refuse,
    setReactionCodes: refuse,
    createAdminInvite: refuse,
    revokeAdminInvite: refuse,
    acceptAdminInvite: refuse,
    demote: refuse,
    changeOwner: refuse,
  };
}
