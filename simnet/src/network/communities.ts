// Communities: a parent group (<parent>) with a default announcement sub-group (<default_sub_group>)
// and linked sub-groups (<linked_parent>). Every member of a linked group is a member of the
// community and of its announcement group; unlinking takes out those no other linked group keeps.
import type { Group, GroupStore } from './groups.js';

/** Creates a community with its announcement group; `creatorPhone` is superadmin of both. */
export function createCommunity(store: GroupStore, subject: string, description: string, creatorPhone: string, descriptionId: string): { parent: Group; announcement: Group } {
  const parent = store.create(subject, creatorPhone);
  const announcement = store.create(subject, creatorPhone);
  for (const g of [parent, announcement]) g.participants.set(creatorPhone, { phone: creatorPhone, role: 'superadmin' });
  parent.description = description;
  parent.descriptionId = description ? descriptionId : '';
  parent.community = { announcementJid: announcement.jid, allowNonAdminSubGroupCreation: false };
  // Only admins post in the announcement group.
  announcement.announce = true;
  announcement.defaultSubGroup = true;
  announcement.linkedParent = parent.jid;
  return { parent, announcement };
}

/** The community's groups: the announcement group first, then the linked ones, oldest first. */
export function subGroupsOf(store: GroupStore, parent: Group): Group[] {
  const linked = [...store.all()].filter((g) => g.linkedParent === parent.jid);
  return linked.sort((a, b) => Number(b.defaultSubGroup) - Number(a.defaultSubGroup) || a.creation - b.creation);
}

export function announcementOf(store: GroupStore, parent: Group): Group | undefined {
  return parent.community ? store.get(parent.community.announcementJid) : undefined;
}

/** Adds `phones` to the community and its announcement group (members keep their role); answers who was new. */
export function joinCommunity(store: GroupStore, parent: Group, phones: readonly string[]): string[] {
  const added: string[] = [];
  const announcement = announcementOf(store, parent);
  for (const phone of phones) {
    if (!parent.participants.has(phone)) {
      parent.participants.set(phone, { phone, role: null });
      added.push(phone);
    }
    if (announcement && !announcement.participants.has(phone)) announcement.participants.set(phone, { phone, role: null });
  }
  return added;
}

/** Takes `phones` out of the community, its announcement group and (`everywhere`) every linked group. */
export function leaveCommunity(store: GroupStore, parent: Group, phones: readonly string[], everywhere: boolean): void {
  for (const g of [parent, ...subGroupsOf(store, parent)]) {
    if (!everywhere && !(g === parent || g.defaultSubGroup)) continue;
    for (const phone of phones) g.participants.delete(phone);
  }
}

/** Links `g`; its members join the community. Answers the phones that joined the community. */
export function linkGroup(store: GroupStore, parent: Group, g: Group): string[] {
  g.linkedParent = parent.jid;
  return joinCommunity(store, parent, g.members().map((m) => m.phone));
}

/**
 * Unlinks `g`; its members leave the community unless another linked group keeps them or they
 * are community admins. Answers the phones that left.
 */
export function unlinkGroup(store: GroupStore, parent: Group, g: Group): string[] {
  g.linkedParent = null;
  const others = subGroupsOf(store, parent).filter((s) => !s.defaultSubGroup);
  const leaving = g.members().map((m) => m.phone).filter((p) => !parent.isAdmin(p) && !others.some((o) => o.participants.has(p)));
  leaveCommunity(store, parent, leaving, false);
  return leaving;
}
