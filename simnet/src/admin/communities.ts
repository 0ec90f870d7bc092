// Admin operations on communities: read one as the network holds it, and change one as another of
// its admins (their members' linked devices hear the notifications a real change sends).
import type { SimnetContext } from '../server/context.js';
import { HttpError } from '../http-error.js';
import { CommunityRefusal, communityOf, communityView, deactivateCommunity, linkToCommunity, setNonAdminSubGroupCreation, unlinkFromCommunity, type CommunityView } from '../handlers/communities.js';
import type { GroupNotified } from '../handlers/group-notify.js';
import { digitsOf } from '../network/jid.js';
import type { CommunityActionRequest, CommunityActionResult } from './types.js';

/** A refusal of the network as the admin API's HTTP error (its iq code is an HTTP status too). */
function asHttp<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof CommunityRefusal) throw new HttpError(e.code, e.message);
    throw e;
  }
}

export function community(net: SimnetContext, jid: string): CommunityView {
  return asHttp(() => communityView(net, communityOf(net, jid)));
}

export function communityAction(net: SimnetContext, req: CommunityActionRequest): CommunityActionResult {
  return asHttp(() => {
    const parent = communityOf(net, req.community);
    const actor = net.registry.byNumber(digitsOf(req.actor ?? ''));
    if (!actor) throw new HttpError(404, `no such user ${req.actor}`);
    const group = () => {
      const g = net.groups.get(req.group ?? '');
      if (!g) throw new HttpError(404, `no such group ${String(req.group)}`);
      return g;
    };
    let sent: GroupNotified;
    switch (req.action) {
      case 'link':
        sent = linkToCommunity(net, parent, actor, group());
        break;
      case 'unlink':
        sent = unlinkFromCommunity(net, parent, actor, group());
        break;
      case 'deactivate':
        sent = deactivateCommunity(net, parent, actor);
        return { notificationId: sent.id, devices: sent.devices, community: null };
      case 'allowNonAdminSubGroupCreation':
        sent = setNonAdminSubGroupCreation(net, parent, actor, req.value !== false);
        break;
      default:
        throw new HttpError(400, `unknown community action ${String((req as { action: unknown }).action)}`);
    }
    return { notificationId: sent.id, devices: sent.devices, community: communityView(net, parent) };
  });
}
