// Serves received media at its signed link: the signature and expiry are checked first (a wrong or
// stale link never reaches the file), then the file is streamed from the media store — fetched from
// the network first when its download has not finished or failed before.
import type { Readable } from 'node:stream';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import type { MediaStore } from '../media/store.js';
import type { MediaRepo } from '../store/media-repo.js';
import type { MediaFileRow } from '../store/schema.js';

/** Fetches a file that is not stored yet (the engine's media downloads); absent without an engine. */
export interface MediaFetcher {
  ensure(id: string): Promise<MediaFileRow>;
}

interface MediaFile {
  stream: Readable;
  size: number;
  mimetype: string;
  fileName: string | null;
}

/** How often a node that does not own the instance looks for the owner's copy. */
const OWNER_POLL_MS = 200;

const stillRunning = (): Error => errors.upstreamUnavailable('the download from the network is still running', 5);

export class MediaService {
  constructor(
    private readonly repo: Pick<MediaRepo, 'find' | 'findMany'>,
    private readonly files: MediaStore,
    private readonly signer: MediaUrlSigner,
    private readonly fetcher: MediaFetcher | null,
    private readonly clock: Clock,
    /**
     * Cluster mode: whether this node runs the instance. Only its owner downloads a file (it has the
     * socket, and started the download when the message came); another node waits for the owner's
     * copy in the shared store instead of downloading — or marking the file failed — itself.
     */
    private readonly owns: ((instanceId: string) => boolean) | null = null,
    /** How long a request waits for a download still running before answering 502 (a guard: the network's pace). */
    private readonly waitMs = 30_000,
  ) {}

  async open(id: string, exp: string | undefined, sig: string | undefined): Promise<MediaFile> {
    const verdict = this.signer.check(id, exp, sig, this.clock.now());
    if (verdict === 'bad-signature') throw errors.forbidden('the link is not valid');
    if (verdict === 'expired') throw errors.forbidden('the link has expired');
    let row = await this.repo.find(id);
    if (!row || row.expires_at <= this.clock.now()) throw errors.notFound('Media not found');
    for (let attempt = 0; attempt < 2; attempt++) {
      if (row.status !== 'stored') row = this.owns && !this.owns(row.instance_id) ? await this.ownersCopy(id) : await this.fetch(id);
      const file = row.sha256 ? await this.files.open(row.sha256) : null;
      if (file) return { ...file, mimetype: row.mimetype, fileName: row.file_name };
      // The row says stored but the bytes are gone (a disk restored without them): fetch again.
      row = { ...row, status: 'failed' };
    }
    throw errors.upstreamUnavailable('the file could not be stored', 30);
  }

  /**
   * Signed links to files still within their retention, by id (others are left out): what a stored
   * message names by its media id, linked the way its webhook linked it (the link's expiry is the file's).
   */
  async links(ids: readonly string[]): Promise<Map<string, string>> {
    const now = this.clock.now();
    const rows = await this.repo.findMany(ids);
    return new Map(rows.filter((r) => r.expires_at > now).map((r) => [r.id, this.signer.url(r.id, r.expires_at)]));
  }

  /** The row once the owner (another node) has stored the file; 502 when it has not within the wait. */
  private async ownersCopy(id: string): Promise<MediaFileRow> {
    let row: MediaFileRow | undefined;
    const settled = async (): Promise<boolean> => {
      row = await this.repo.find(id);
      return !row || row.status === 'stored' || row.status === 'failed';
    };
    if (!(await this.clock.waitUntil(settled, this.waitMs, { pollMs: OWNER_POLL_MS }))) throw stillRunning();
    if (!row) throw errors.notFound('Media not found');
    if (row.status === 'failed') throw errors.upstreamUnavailable('the download failed on the node that runs the instance; a retry that reaches that node tries it again', 5);
    return row;
  }

  private async fetch(id: string): Promise<MediaFileRow> {
    if (!this.fetcher) throw errors.upstreamUnavailable('this gateway runs without the engine', 60);
    try {
      return await this.clock.withTimeout(this.fetcher.ensure(id), this.waitMs, stillRunning);
    } catch (err) {
      if (err instanceof Error && err.name === 'DomainError') throw err;
      throw errors.upstreamUnavailable(err instanceof Error ? err.message : String(err), 30);
    }
  }
}
