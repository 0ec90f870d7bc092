// Community changes the network announces in w:gp2 notifications that Baileys drops (it makes no
// stub message of <link>, <unlink>, <delete> or the sub-group setting): read from the socket's frames
// and turned into the stub messages WhatsApp's apps show, so they reach the webhook like any other
// group change. Parameters are already in the API's spelling: a group as `<digits>-group`, a
// community as its digits.
import { getAllBinaryNodeChildren, getBinaryNodeChild, proto, type BinaryNode, type WAMessage } from 'baileys';
import { groupIdOf } from '../jids.js';

const Stub = proto.WebMessageInfo.StubType;

/** The w:gp2 children read here (Baileys handles every other one). */
const TAGS = ['link', 'unlink', 'delete', 'allow_non_admin_sub_group_creation', 'not_allow_non_admin_sub_group_creation'] as const;

/** What one notification reports: its stub, and the groups whose cached metadata it outdates. */
interface CommunityChange {
  message: WAMessage;
  groups: string[];
}

/** The notification as a stub message, or null when it is not about a community. */
export function communityChangeOf(node: BinaryNode): CommunityChange | null {
  const from = node.attrs.from;
  const id = node.attrs.id;
  const change = getAllBinaryNodeChildren(node)[0];
  if (!from || !id || !change) return null;
  let type: number;
  let parameters: string[] = [];
  const groups = [from];
  switch (change.tag) {
    case 'link':
    case 'unlink': {
      const kind = change.attrs[change.tag === 'link' ? 'link_type' : 'unlink_type'];
      const other = getBinaryNodeChild(change, 'group');
      const jid = other?.attrs.jid;
      if (!jid || (kind !== 'sub_group' && kind !== 'parent_group')) return null;
      groups.push(jid);
      // From the community: a group joined or left it. From the group: it joined or left a community.
      if (kind === 'sub_group') {
        type = change.tag === 'link' ? Stub.COMMUNITY_LINK_SUB_GROUP : Stub.COMMUNITY_UNLINK_SUB_GROUP;
        parameters = [groupIdOf(jid), other.attrs.subject ?? ''];
      } else {
        type = change.tag === 'link' ? Stub.COMMUNITY_LINK_PARENT_GROUP : Stub.COMMUNITY_UNLINK_PARENT_GROUP;
        parameters = [jid.split('@')[0] ?? '', other.attrs.subject ?? ''];
      }
      break;
    }
    case 'delete':
      if (change.attrs.reason !== 'delete_parent') return null;
      type = Stub.COMMUNITY_PARENT_GROUP_DELETED;
      break;
    case 'allow_non_admin_sub_group_creation':
    case 'not_allow_non_admin_sub_group_creation':
      type = Stub.COMMUNITY_ALLOW_MEMBER_ADDED_GROUPS;
      parameters = [change.tag.startsWith('allow') ? 'on' : 'off'];
      break;
    default:
      return null;
  }
  const participant = node.attrs.participant;
  const message: WAMessage = {
    key: { remoteJid: from, id, fromMe: false, participant, ...(node.attrs.participant_pn ? { participantAlt: node.attrs.participant_pn } : {}) },
    participant,
    messageStubType: type,
    messageStubParameters: parameters,
    messageTimestamp: Number(node.attrs.t ?? 0),
  };
  return { message, groups };
}

/** The frames read here, before Baileys acks them (intake-table.ts listens on each). */
export const COMMUNITY_FRAMES: readonly string[] = TAGS.map((tag) => `CB:notification,type:w:gp2,${tag}`);
