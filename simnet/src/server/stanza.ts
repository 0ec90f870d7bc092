// Stanza helpers every handler uses: reading a node's children and bytes, and IQ answers. A leaf
// module (it imports nothing of simnet's), so handlers need not import the server that calls them.
import type { BinaryNode } from 'baileys';

export const S_WHATSAPP_NET = 's.whatsapp.net';

export function iqResult(req: BinaryNode, content?: BinaryNode[]): BinaryNode {
  const attrs: Record<string, string> = { id: req.attrs.id ?? '', type: 'result', from: req.attrs.to ?? S_WHATSAPP_NET };
  return content ? { tag: 'iq', attrs, content } : { tag: 'iq', attrs };
}

export function iqError(req: BinaryNode, code: number, text: string): BinaryNode {
  return {
    tag: 'iq',
    attrs: { id: req.attrs.id ?? '', type: 'error', from: req.attrs.to ?? S_WHATSAPP_NET },
    content: [{ tag: 'error', attrs: { code: String(code), text } }],
  };
}

export function childNodes(node: BinaryNode | undefined): BinaryNode[] {
  return node && Array.isArray(node.content) ? (node.content as BinaryNode[]) : [];
}

export function child(node: BinaryNode | undefined, tag: string): BinaryNode | undefined {
  return childNodes(node).find((c) => c.tag === tag);
}

export function bytesOf(node: BinaryNode | undefined): Buffer | undefined {
  const c = node?.content;
  if (c instanceof Uint8Array) return Buffer.from(c);
  if (typeof c === 'string') return Buffer.from(c, 'utf8');
  return undefined;
}
