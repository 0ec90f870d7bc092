// AccountPort over the Baileys engine: each operation runs on the instance's open session
// (409 "Instance not connected" otherwise); profile pictures go through the outgoing-media
// pipeline first (address guard, size and pixel limits), never fetched by Baileys itself.
import { errors } from '../errors.js';
import { SendFailure } from '../domain/send-failure.js';
import type { AccountPort, AccountReactionSettings, BlacklistCategory, BlacklistChange, DeviceInfo, PrivacyCategory, PrivacyValue } from './account-port.js';
import * as ops from './account-ops.js';
import type { AccountReactions } from './account-reactions.js';
import type { MediaPipeline } from './media.js';
import { openSocket } from './operations.js';
import type { Session } from './session.js';

interface AccountEngineDeps {
  sessionOf(instanceId: string): Session | undefined;
  media: MediaPipeline;
  reactions: AccountReactions;
  commandTimeoutMs: number;
}

export class AccountEngine implements AccountPort {
  constructor(private readonly deps: AccountEngineDeps) {}

  private open(instanceId: string): Session {
    return openSocket(this.deps.sessionOf(instanceId)).session;
  }

  setProfileName(instanceId: string, name: string): Promise<void> {
    return ops.setProfileName(this.open(instanceId), name, this.deps.commandTimeoutMs);
  }

  setProfileDescription(instanceId: string, about: string): Promise<void> {
    return ops.setProfileDescription(this.open(instanceId), about, this.deps.commandTimeoutMs);
  }

  async setProfilePicture(instanceId: string, ref: string): Promise<void> {
    this.open(instanceId);
    const image = await this.deps.media.hold(async () => {
      try {
        return (await this.deps.media.image(ref, 'value')).data;
      } catch (err) {
        throw mediaError(err);
      }
    });
    await ops.setProfilePicture(this.open(instanceId), image, this.deps.commandTimeoutMs);
  }

  device(instanceId: string): Promise<DeviceInfo> {
    return ops.deviceInfo(this.open(instanceId), this.deps.commandTimeoutMs);
  }

  profilePictureUrl(instanceId: string, phone: string): Promise<string | null> {
    return ops.profilePictureUrl(this.open(instanceId), phone, this.deps.commandTimeoutMs);
  }

  setBlocked(instanceId: string, phone: string, blocked: boolean): Promise<void> {
    return ops.setBlocked(this.open(instanceId), phone, blocked, this.deps.commandTimeoutMs);
  }

  setPrivacy(instanceId: string, category: PrivacyCategory, value: PrivacyValue, blacklist: readonly BlacklistChange[]): Promise<void> {
    return ops.setPrivacy(this.open(instanceId), category, value, blacklist, this.deps.commandTimeoutMs);
  }

  setChatExpiration(instanceId: string, target: string, seconds: number): Promise<void> {
    return ops.setChatExpiration(this.open(instanceId), target, seconds, this.deps.commandTimeoutMs);
  }

  setDefaultDisappearing(instanceId: string, seconds: number): Promise<void> {
    return ops.setDefaultDisappearing(this.open(instanceId), seconds, this.deps.commandTimeoutMs);
  }

  disallowedContacts(instanceId: string, category: BlacklistCategory): Promise<string[]> {
    return ops.disallowedContacts(this.open(instanceId), category, this.deps.commandTimeoutMs);
  }

  applyReactions(instanceId: string, settings: AccountReactionSettings): void {
    this.deps.reactions.apply(instanceId, settings);
  }
}

/**
 * The media pipeline speaks the sender's language (SendFailure); a synchronous endpoint answers at
 * once: a payload that is not a usable image is the client's mistake (400), a URL that could not be
 * fetched is a refusal with its reason (422).
 */
export function mediaError(err: unknown): Error {
  if (!(err instanceof SendFailure)) return err instanceof Error ? err : new Error(String(err));
  if (err.code === 'MEDIA_INVALID' || err.code === 'MEDIA_TOO_LARGE') return errors.invalidInput(err.reason);
  return errors.networkRefused(err.reason, err);
}
