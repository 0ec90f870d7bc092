// Base64 data URIs (`data:<label>;base64,<bytes>`). The label is ignored: sniff.ts decides.

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9=.+-]+)*;base64,/i;

/** Decodes a base64 data URI, or null when `ref` is not one. */
export function decodeDataUri(ref: string): Buffer | null {
  const m = DATA_URI.exec(ref);
  return m ? Buffer.from(ref.slice(m[0].length), 'base64') : null;
}
