// Opt-out keywords (docs/contract.md §12): a received message opts its sender out when the whole
// message, normalised, is one of the account's keywords. Normalised: lower case, accents removed,
// spaces collapsed, punctuation and emoji around the words dropped ("  Parar! " = "parar").

/** Portuguese, Spanish and English: what people write to stop messages. */
export const DEFAULT_OPT_OUT_KEYWORDS: readonly string[] = [
  'sair', 'parar', 'pare', 'stop', 'cancelar', 'descadastrar', 'nao quero mais',
  'baja', 'dar de baja', 'darme de baja', 'no mas', 'no quiero mas',
  'unsubscribe', 'opt out', 'optout', 'stop all',
];

/** Sent once to a number that opted out by keyword, unless the account sets its own (or none). */
export const DEFAULT_OPT_OUT_CONFIRMATION =
  'Você não receberá mais mensagens nossas. / Ya no recibirá más mensajes nuestros. / You will no longer receive messages from us.';

/** The longest keyword a setting may hold; a longer message is never an opt-out (cheap first test). */
export const MAX_KEYWORD_CHARS = 60;

/** The form keywords and messages are compared in. */
export function normalizeKeyword(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
