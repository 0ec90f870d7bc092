// Received media in a cluster: two gateway processes on one PostgreSQL keep received files in a store
// both share — PostgreSQL (the cluster default) or an S3 bucket (a real S3-protocol server on
// loopback) — so a file received by the node that owns the instance is served, at its signed link,
// by the other node too, byte for byte, and still after the receiving node was killed (kill -9),
// whose instance the other node then takes over without its device ever being logged in twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { assertOneSocketPerDevice, startCluster, type ClusterHarness, type ClusterInstance } from '../helpers/cluster-harness.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';
import { until, WAIT_TIMEOUT_MS } from '../helpers/wait.js';

const OWNER = '5511977720001';
const CONTACT = '5511966620001';
/** The cluster's lease (cluster-harness's default): the killed node's instance is free once it runs out. */
const LEASE_MS = 10_000;

async function fetchBytes(url: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

for (const backend of ['postgres', 's3'] as const) {
  describe(`cluster media store: ${backend}`, () => {
    let h: ClusterHarness;
    let s3: TestS3 | null = null;
    let inst: ClusterInstance;
    let owner: string;
    let other: string;

    before(async () => {
      if (backend === 's3') s3 = await startS3();
      // No ZAPGATE_MEDIA_STORE for postgres: it is what cluster mode chooses without a bucket.
      h = await startCluster({ owners: [OWNER], contacts: [CONTACT], ...(s3 ? { env: s3.env('cluster/') } : {}) });
      await h.startNodes('n1', 'n2');
      inst = await h.pair('n1', OWNER);
      owner = await h.connected('n1', inst);
      other = owner === 'n1' ? 'n2' : 'n1';
    });

    after(async () => {
      await h?.close();
      await s3?.close();
    });

    test('a received image\'s link answers the exact bytes from the other node, also after the receiving node was killed', async () => {
      // Random pixels: a PNG of a few hundred KB that no other test stores.
      const png = await sharp(randomBytes(300 * 300 * 3), { raw: { width: 300, height: 300, channels: 3 } }).png().toBuffer();
      const { messageId } = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png' });
      const link = await until(
        'the image reported with its link',
        () => (h.posts.find((p) => p.body.type === 'ReceivedCallback' && p.body.messageId === messageId)?.body.image as { imageUrl?: string } | undefined)?.imageUrl,
        (l) => typeof l === 'string' && l !== '',
        { pollMs: 100 },
      );
      assert.ok(link, 'the image was reported with its link');
      const url = new URL(link);
      const via = (node: string) => `${h.nodes.get(node)!.url}${url.pathname}${url.search}`;

      // At once: the other node waits for the owner's download to reach the shared store.
      const fromOther = await fetchBytes(via(other));
      assert.equal(fromOther.status, 200, `from ${other}: ${fromOther.body.toString().slice(0, 200)}`);
      assert.ok(fromOther.body.equals(png), `${other} serves the bytes ${owner} received`);
      const fromOwner = await fetchBytes(via(owner));
      assert.ok(fromOwner.status === 200 && fromOwner.body.equals(png), `${owner} serves them too`);

      await h.nodes.get(owner)!.kill9();
      const afterKill = await fetchBytes(via(other));
      assert.equal(afterKill.status, 200, `after the kill: ${afterKill.body.toString().slice(0, 200)}`);
      assert.ok(afterKill.body.equals(png), 'the file outlives the node that received it');
      // And it is the shared store that kept it, not a node's data dir.
      if (backend === 'postgres') {
        const blobs = await h.query<{ size: string }>('select b.size from media_blobs b join media_files f on f.sha256 = b.sha256 where f.message_id = $1', [messageId]);
        assert.ok(blobs.map((b) => Number(b.size)).includes(png.length), 'the image is in media_blobs (beside its thumbnail)');
      } else {
        const tampered = new URL(via(other));
        tampered.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 1));
        assert.equal((await fetchBytes(tampered.toString())).status, 403, 'the bucket needs no public access: the signature still guards the file');
      }
      // The killed node's instance is taken over (a lease later), one socket per device throughout.
      assert.equal(await h.connected(other, inst, LEASE_MS + WAIT_TIMEOUT_MS, owner), other, `${other} took the instance over`);
      await assertOneSocketPerDevice(h.admin, [OWNER], 'after the kill -9 and the takeover');
    });
  });
}
