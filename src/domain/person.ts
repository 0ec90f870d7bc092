// A person as every payload names them (docs/contract.md §5, Z-API's `tips/lid`): WhatsApp now
// addresses people by LID (`<digits>@lid`, a private id) and may hide their number.

export interface Person {
  /** The number (digits) when it is known, else the `<digits>@lid` address itself. */
  phone: string;
  /** The `<digits>@lid` address when it is known: the most stable way to key a customer. */
  lid: string | null;
}

/** True when `chat` is a LID address as the API spells it (`<digits>@lid`). */
export function isLidAddress(chat: string): boolean {
  return /^\d+@lid$/.test(chat);
}
