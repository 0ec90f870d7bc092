// An instance as the gateway's use cases see it: booleans, unions and camelCase, never the store's
// 0/1 flags or column names. The store maps its row to this once (store/instances-repo.ts, toInstance).

/** An instance's session as the API reports it (GET /status and its history). */
export const INSTANCE_STATUSES = ['disconnected', 'pairing', 'connecting', 'connected', 'logged_out', 'banned', 'replaced'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** How option and button lists are sent (update-list-mode): a poll, numbered text or native. */
export const LIST_MODES = ['poll', 'text', 'native'] as const;
export type ListMode = (typeof LIST_MODES)[number];

export interface Instance {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** Hash of the instance token (the token itself is never stored). */
  readonly tokenHash: string;
  readonly status: InstanceStatus;
  readonly statusReason: string | null;
  /** ms since the epoch when `status` was entered. */
  readonly statusSince: number;
  /** The paired account's number; null before the first pairing. */
  readonly phone: string | null;
  readonly lid: string | null;
  /** ms since the epoch of the last pairing; null = never paired (no credentials to restore). */
  readonly pairedAt: number | null;
  readonly createdAt: number;
  /** The anti-ban strategy (update-antiban). */
  readonly antiban: boolean;
  /** Refuse sends while disconnected instead of queueing them (update-disable-enqueue-when-disconnected). */
  readonly disableEnqueueWhenDisconnected: boolean;
  /** Messages sent from the phone also go to the received webhook (update-notify-sent-by-me). */
  readonly notifySentByMe: boolean;
  readonly listMode: ListMode;
  /** Closing line of numbered-text lists; null = the default wording. */
  readonly listReplyHint: string | null;
  readonly webhookSecret: string;
  /** The secret before the last rotation, still accepted by receivers for a while; null = none. */
  readonly webhookSecretPrevious: string | null;
  /** Mark received messages read once committed (update-auto-read-message). */
  readonly autoReadMessage: boolean;
  /** Also status posts (update-auto-read-status; needs autoReadMessage). */
  readonly autoReadStatus: boolean;
  /** Reject incoming calls (update-call-reject-auto). */
  readonly callRejectAuto: boolean;
  /** Sent to a caller whose call was rejected; null = nothing sent. */
  readonly callRejectMessage: string | null;
  /** The instance's proxy (src/net/proxy.ts), credentials included; null = none. */
  readonly proxyUrl: string | null;
  /** Use proxyUrl (Z-API's `enable`); without a URL it has no effect. */
  readonly proxyEnabled: boolean;
  /** Import the phone's history at pairing (opt-in). */
  readonly historyImport: boolean;
  /** Days of history imported (older messages are dropped). */
  readonly historyDays: number;
  /** Imported messages also go to the received webhook, marked `fromHistory`. */
  readonly historyWebhook: boolean;
}

/** The settings a use case may change, in domain words (the store spells them as columns). */
export type InstanceChanges = Partial<
  Pick<
    Instance,
    | 'name'
    | 'tokenHash'
    | 'antiban'
    | 'disableEnqueueWhenDisconnected'
    | 'notifySentByMe'
    | 'listMode'
    | 'listReplyHint'
    | 'webhookSecret'
    | 'webhookSecretPrevious'
    | 'autoReadMessage'
    | 'autoReadStatus'
    | 'callRejectAuto'
    | 'callRejectMessage'
    | 'proxyUrl'
    | 'proxyEnabled'
    | 'historyImport'
    | 'historyDays'
    | 'historyWebhook'
  >
>;

/**
 * Z-API's `due` (when the subscription ends, ms) for an instance that never expires: 9999-12-31
 * 23:59:59 UTC. Z-API documents a number there, and some clients compare it with the clock, so a
 * self-hosted gateway answers a far-future time rather than null (docs/contract.md §4).
 */
export const NEVER_DUE_MS = 253_402_300_799_000;
