// AccountPort over the Baileys engine: each operation runs on the instance's open session
// (409 "Instance not connected" otherwise); profile pictures go through the outgoing-media
// pipeline first (address guard, size and pixel limits), never fetched by Baileys itself.
import type { AccountPort, AccountReactionSettings, BlacklistCategory, BlacklistChange, DeviceInfo, PrivacyCategory, PrivacyValue } from './account-port.js';
import * as ops from './account-ops.js';
import type { AccountReactions } from './account-reactions.js';
import type { MediaPipeline } from '../../outbound/media.js';
import { mediaError, sessionCommands, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';

interface AccountEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  media: MediaPipeline;
  reactions: AccountReactions;
}

export class AccountEngine implements AccountPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: AccountEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  setProfileName(instanceId: string, name: string): Promise<void> {
    return ops.setProfileName(this.commands.open(instanceId), name, this.deps);
  }

  setProfileDescription(instanceId: string, about: string): Promise<void> {
    return ops.setProfileDescription(this.commands.open(instanceId), about, this.deps);
  }

  async setProfilePicture(instanceId: string, ref: string): Promise<void> {
    this.commands.open(instanceId);
    const image = await this.deps.media.hold(async () => {
      try {
        return (await this.deps.media.image(ref, 'value')).data;
      } catch (err) {
        throw mediaError(err);
      }
    });
    await ops.setProfilePicture(this.commands.open(instanceId), image, this.deps);
  }

  device(instanceId: string): Promise<DeviceInfo> {
    return ops.deviceInfo(this.commands.open(instanceId), this.deps);
  }

  profilePictureUrl(instanceId: string, phone: string): Promise<string | null> {
    return ops.profilePictureUrl(this.commands.open(instanceId), phone, this.deps);
  }

  setBlocked(instanceId: string, phone: string, blocked: boolean): Promise<void> {
    return ops.setBlocked(this.commands.open(instanceId), phone, blocked, this.deps);
  }

  setPrivacy(instanceId: string, category: PrivacyCategory, value: PrivacyValue, blacklist: readonly BlacklistChange[]): Promise<void> {
    return ops.setPrivacy(this.commands.open(instanceId), category, value, blacklist, this.deps);
  }

  setChatExpiration(instanceId: string, target: string, seconds: number): Promise<void> {
    return ops.setChatExpiration(this.commands.open(instanceId), target, seconds, this.deps);
  }

  setDefaultDisappearing(instanceId: string, seconds: number): Promise<void> {
    return ops.setDefaultDisappearing(this.commands.open(instanceId), seconds, this.deps);
  }

  disallowedContacts(instanceId: string, category: BlacklistCategory): Promise<string[]> {
    return ops.disallowedContacts(this.commands.open(instanceId), category, this.deps);
  }

  applyReactions(instanceId: string, settings: AccountReactionSettings): void {
    this.deps.reactions.apply(instanceId, settings);
  }
}

