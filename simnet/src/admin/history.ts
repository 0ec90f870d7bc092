// What an account's phone holds for history sync (admin `PUT /users/{phone}/history`): the request checked
// against the network's limits, then generated and kept on the account.
import type { Account } from '../network/accounts.js';
import { HttpError } from '../http-error.js';
import { generateHistory, MAX_HISTORY_CHATS, MAX_HISTORY_MESSAGES, phoneHistory, setPhoneHistory, summarize, type HistorySeedRequest, type HistorySummary } from '../network/phone-history.js';

/**
 * Seeds what the account's phone holds (chats, messages, push names); a device linked afterwards
 * receives it as history sync. Replaces any history seeded before. `nowMs`: the network's time, the
 * newest message's.
 */
export function seedPhoneHistory(acc: Account, req: HistorySeedRequest, nowMs: number): HistorySummary {
  const int = (v: unknown, name: string, min: number, max: number): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new HttpError(400, `${name} must be an integer ${min}..${max}`);
    return v;
  };
  const chats = int(req.chats, 'chats', 0, MAX_HISTORY_CHATS);
  const messagesPerChat = int(req.messagesPerChat, 'messagesPerChat', 1, MAX_HISTORY_MESSAGES);
  if (chats * messagesPerChat > MAX_HISTORY_MESSAGES) throw new HttpError(400, `at most ${MAX_HISTORY_MESSAGES} messages`);
  if (typeof req.days !== 'number' || !(req.days >= 0) || req.days > 3650) throw new HttpError(400, 'days must be 0..3650');
  if (req.groups !== undefined) int(req.groups, 'groups', 0, chats);
  if (req.chunkChats !== undefined) int(req.chunkChats, 'chunkChats', 1, MAX_HISTORY_CHATS);
  if (req.messageSpacingSec !== undefined) int(req.messageSpacingSec, 'messageSpacingSec', 1, 86_400);
  const history = generateHistory({ ...req, chats, messagesPerChat }, nowMs);
  setPhoneHistory(acc, history);
  return summarize(history);
}

/** The history the account's phone holds (what a newly linked device gets); `phone` as asked, for the 404. */
export function historyOf(acc: Account, phone: string): HistorySummary {
  const h = phoneHistory(acc);
  if (!h) throw new HttpError(404, `${phone}'s phone holds no history`);
  return summarize(h);
}
