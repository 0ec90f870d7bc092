// Option and button lists (docs/contract.md §6): how each delivery mode renders them, and how an answer
// (poll vote, numbered reply, native selection) maps back to the option id the client gave.
import { createHash } from 'node:crypto';
import type { ListButton, ListOption } from '../../domain/outgoing.js';
import type { ListMode } from '../../domain/instance.js';


/** Stored beside the sent message so answers can be mapped back. */
export interface ListMeta {
  kind: 'option-list' | 'button-list';
  mode: ListMode;
  /** In display order; `value` is the poll option text or the numbered line's title. */
  options: { id: string; title: string; value: string }[];
}

/** WhatsApp polls hold at most 12 options; longer lists fall back to numbered text. */
export const MAX_POLL_OPTIONS = 12;
const MAX_POLL_VALUE = 100;

export function optionListMeta(options: readonly ListOption[], mode: ListMode): ListMeta {
  const effective = mode === 'poll' && options.length > MAX_POLL_OPTIONS ? 'text' : mode;
  // A poll option cannot show a description below its title: it goes on the same line.
  const title = (o: ListOption) => (effective === 'poll' && o.description ? `${o.title} — ${o.description}` : o.title);
  return { kind: 'option-list', mode: effective, options: withValues(options.map((o) => ({ id: o.id, title: o.title, value: title(o) }))) };
}

export function buttonListMeta(buttons: readonly ListButton[], mode: ListMode): ListMeta {
  const effective = mode === 'poll' && buttons.length > MAX_POLL_OPTIONS ? 'text' : mode;
  return { kind: 'button-list', mode: effective, options: withValues(buttons.map((b) => ({ id: b.id, title: b.label }))) };
}

/** Poll options must be distinct: a repeated title gets a counter so each vote stays unambiguous. */
function withValues(items: { id: string; title: string; value?: string }[]): ListMeta['options'] {
  const seen = new Map<string, number>();
  return items.map(({ id, title, value: shown }) => {
    let value = (shown ?? title).slice(0, MAX_POLL_VALUE);
    const n = (seen.get(value) ?? 0) + 1;
    seen.set(value, n);
    if (n > 1) value = `${value.slice(0, MAX_POLL_VALUE - 5)} (${n})`;
    return { id, title, value };
  });
}

/** The poll question: the list title (when any) above the message, and the list's button label below it. */
export function pollName(message: string, title?: string, buttonLabel?: string): string {
  const head = title && title !== message ? `${title}\n\n${message}` : message;
  return buttonLabel && buttonLabel !== title && buttonLabel !== message ? `${head}\n\n${buttonLabel}` : head;
}

/** What numbered text ends with unless the instance chose its own wording (`update-list-reply-hint`). */
const DEFAULT_REPLY_HINT = 'Reply with the number of your choice.';

/** How the instance renders lists: the delivery mode and the numbered-text wording. */
export interface ListSettings {
  mode: ListMode;
  /** The closing line of numbered text; null or empty: DEFAULT_REPLY_HINT. */
  replyHint: string | null;
}

interface NumberedTextOptions {
  title?: string;
  descriptions?: readonly string[];
  /** Shown above the numbered lines (the list's button label). */
  label?: string;
  /** The closing line (the instance's wording); DEFAULT_REPLY_HINT when absent. */
  hint?: string | null;
}

/** Numbered text for `list_mode='text'`: one line per option, answered by its number. */
export function numberedText(message: string, meta: ListMeta, opts: NumberedTextOptions = {}): string {
  const lines = meta.options.map((o, i) => {
    const d = opts.descriptions?.[i];
    return `${i + 1}. ${o.title}${d ? ` — ${d}` : ''}`;
  });
  const head = opts.title && opts.title !== message ? `*${opts.title}*\n${message}` : message;
  const label = opts.label && opts.label !== opts.title && opts.label !== message ? `*${opts.label}*\n` : '';
  return `${head}\n\n${label}${lines.join('\n')}\n\n_${opts.hint || DEFAULT_REPLY_HINT}_`;
}

/** The option a numbered reply ("2", " 2. ") designates, if any. */
export function optionForNumber(meta: ListMeta, text: string): ListMeta['options'][number] | undefined {
  const m = /^\s*(\d{1,3})\s*[.)]?\s*$/.exec(text);
  if (!m) return undefined;
  return meta.options[Number(m[1]) - 1];
}

/** Poll votes carry SHA-256 hashes of the chosen option texts. */
export function optionsForVoteHashes(meta: ListMeta, hashes: readonly Uint8Array[]): ListMeta['options'] {
  const wanted = new Set(hashes.map((h) => Buffer.from(h).toString('hex')));
  return meta.options.filter((o) => wanted.has(createHash('sha256').update(o.value).digest('hex')));
}

export function optionForId(meta: ListMeta, id: string): ListMeta['options'][number] | undefined {
  return meta.options.find((o) => o.id === id);
}

export function parseMeta(text: string | null | undefined): ListMeta | undefined {
  if (!text) return undefined;
  const v = JSON.parse(text) as Partial<ListMeta>;
  return v.kind && v.mode && Array.isArray(v.options) ? (v as ListMeta) : undefined;
}
