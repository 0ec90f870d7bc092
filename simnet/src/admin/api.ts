// Admin operations on a running simnet (the HTTP layer and in-process callers share these).
import type { Simnet } from '../server/simnet.js';
import type { ClientConnection } from '../server/connection.js';
import { HttpError } from '../handlers/pairing.js';
import { removeDevice } from '../handlers/devices.js';
import { banAccount } from '../handlers/messages.js';
import { contactReceipt, type ReceiptKind } from '../handlers/receipts.js';
import { composeContactMessage } from '../contacts/compose.js';
import { phoneSendDirect, phoneSendGroup } from '../contacts/outbound.js';
import { digitsOf, isGroupJid, lidJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import { groupNode, notifyGroup } from '../handlers/groups.js';
import type { FaultRequest, GroupInfo, SendAsContactRequest, SimnetStats, UserInfo } from './types.js';
import type { ReceiptPolicy } from '../config.js';

export class AdminApi {
  constructor(private readonly net: Simnet) {}

  account(phone: string): Account {
    const acc = this.net.registry.byNumber(digitsOf(phone));
    if (!acc) throw new HttpError(404, `no such user ${phone}`);
    return acc;
  }

  createUser(phone: string, pushName?: string): { phone: string; lid: string } {
    const digits = digitsOf(phone);
    if (!digits) throw new HttpError(400, 'phone required');
    const acc = this.net.registry.create(digits, pushName);
    return { phone: acc.phone, lid: acc.lid };
  }

  user(phone: string): UserInfo {
    const acc = this.account(phone);
    return {
      phone: acc.phone,
      lid: acc.lid,
      pushName: acc.pushName,
      banned: acc.banned,
      devices: [...acc.companions.values()]
        .filter((d) => !d.removed)
        .map((d) => ({
          id: d.id,
          online: d.online,
          platform: d.platform,
          held: d.offline.length,
          heldMessages: d.offline.filter((n) => n.tag === 'message').map((n) => n.attrs.id ?? ''),
          preKeys: d.preKeys.size,
        })),
    };
  }

  unlinkDevice(phone: string, deviceId?: number): { removed: number[] } {
    const acc = this.account(phone);
    const removed: number[] = [];
    for (const d of acc.activeCompanions()) {
      if (deviceId !== undefined && d.id !== deviceId) continue;
      removeDevice(this.net, d, true);
      removed.push(d.id);
    }
    return { removed };
  }

  async sendAsContact(req: SendAsContactRequest): Promise<{ messageId: string }> {
    const from = this.account(req.from);
    if (isGroupJid(req.to)) {
      const group = this.net.groups.get(req.to);
      if (!group) throw new HttpError(404, `no such group ${req.to}`);
      if (!group.participants.has(from.phone)) throw new HttpError(403, `${from.phone} is not in ${req.to}`);
      const msg = await composeContactMessage(this.net, from, group.jid, from.phone, req);
      return { messageId: await phoneSendGroup(this.net, from, group, msg) };
    }
    const to = this.account(req.to);
    const msg = await composeContactMessage(this.net, from, pnJid(to.phone), to.phone, req);
    return { messageId: await phoneSendDirect(this.net, from, to, msg) };
  }

  receipt(contactPhone: string, messageIds: string[], kind: ReceiptKind): { sent: string[]; unknown: string[] } {
    const acc = this.account(contactPhone);
    const sent: string[] = [];
    const unknown: string[] = [];
    for (const id of messageIds) (contactReceipt(this.net, acc, id, kind) ? sent : unknown).push(id);
    return { sent, unknown };
  }

  setPolicy(phone: string, policy: Partial<ReceiptPolicy>): ReceiptPolicy {
    const acc = this.account(phone);
    acc.policy = { ...acc.policy, ...policy };
    return acc.policy;
  }

  injectFault(phone: string, fault: FaultRequest): { affected: number } {
    const acc = this.account(phone);
    if (fault.kind === 'nack') {
      this.net.faults.addNack(acc.phone, fault.code, fault.count ?? 1);
      return { affected: 1 };
    }
    if (fault.kind === 'ban') {
      banAccount(this.net, acc);
      return { affected: 1 };
    }
    let affected = 0;
    for (const d of acc.activeCompanions()) {
      const link = d.link as ClientConnection | null;
      if (!link || link.phase === 'closed') continue;
      affected++;
      switch (fault.kind) {
        case 'stream-error':
          if (fault.code === 401) removeDevice(this.net, d, true);
          else if (fault.code === 440) link.endWith({ tag: 'stream:error', attrs: {}, content: [{ tag: 'conflict', attrs: { type: 'replaced' } }] });
          else link.endWith({ tag: 'stream:error', attrs: { code: String(fault.code) } });
          break;
        case 'silence':
          // Keep the socket but say nothing more: the client's keep-alive gives up (408).
          link.silenced = true;
          break;
        case 'close':
          link.destroy();
          break;
      }
    }
    return { affected };
  }

  setGroupAddable(phone: string, addable: boolean): { phone: string; groupAddable: boolean } {
    const acc = this.account(phone);
    acc.groupAddable = addable;
    return { phone: acc.phone, groupAddable: addable };
  }

  /** A contact's phone creates a group (its linked members hear the w:gp2 create notification). */
  createGroup(creator: string, subject: string, participants: string[]): GroupInfo {
    const owner = this.account(creator);
    const g = this.net.groups.create(subject, owner.phone);
    g.participants.set(owner.phone, { phone: owner.phone, role: 'superadmin' });
    for (const p of participants) {
      const acc = this.net.registry.byNumber(digitsOf(p));
      if (acc && acc.groupAddable) g.participants.set(acc.phone, { phone: acc.phone, role: null });
    }
    notifyGroup(this.net, g, owner, { tag: 'create', attrs: {}, content: [groupNode(this.net, g)] });
    return this.group(g.jid);
  }

  /** Process memory and population, for the density bench. */
  stats(): SimnetStats {
    // Only meaningful with --expose-gc (the density bench starts simnet that way).
    (globalThis as { gc?: () => void }).gc?.();
    let devices = 0;
    let online = 0;
    for (const acc of this.net.registry.all()) {
      for (const d of acc.companions.values()) {
        if (d.removed) continue;
        devices++;
        if (d.online) online++;
      }
    }
    const m = process.memoryUsage();
    const h = this.net.loopDelay;
    const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);
    const eventLoopDelayMs = { mean: ms(h.mean), p99: ms(h.percentile(99)), max: ms(h.max) };
    h.reset();
    const cpu = process.cpuUsage();
    return {
      rss: m.rss,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      accounts: this.net.registry.size,
      devices,
      online,
      connections: this.net.connections.size,
      eventLoopDelayMs,
      cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
    };
  }

  group(jid: string): GroupInfo {
    const g = this.net.groups.get(jid);
    if (!g) throw new HttpError(404, `no such group ${jid}`);
    return {
      jid: g.jid,
      subject: g.subject,
      creator: g.creatorPhone,
      participants: g.members().map((m) => ({ phone: m.phone, lid: lidJid(this.net.registry.byNumber(m.phone)?.lid ?? ''), role: m.role })),
      announce: g.announce,
      locked: g.locked,
      memberAddMode: g.memberAddMode,
      joinApproval: g.joinApproval,
      inviteCode: g.inviteCode,
    };
  }
}
