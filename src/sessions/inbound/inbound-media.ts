// Received media, from the message to a file behind a signed link. A message's files are recorded
// (with what is needed to fetch them) before its event is committed, so the event can carry their
// links at once; the downloads then run in the background, bounded per instance and in total, and
// never hold up, reorder or lose an event. A link fetched before its download finished waits for it
// (or starts it); a failed download is tried again when the link is fetched, and a file the media
// host no longer has is asked again from the sender's phone (WhatsApp's media re-upload request).
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { MediaUrlSigner } from '../../media/signed-urls.js';
import type { MediaStore } from '../../media/store.js';
import type { AddressGuard } from '../../net/address-guard.js';
import type { MediaRepo, NewMediaFile } from '../../store/media-repo.js';
import type { MediaFileRow } from '../../store/schema.js';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent } from 'node:https';
import { downloadMedia, MediaGoneError, type DownloadLimits, type MediaSource } from './media-download.js';

/** What the engine needs from an instance's live link to fetch its media. */
export interface MediaNetwork {
  /** The network's media host (from its media connection info). */
  mediaHost(): Promise<string>;
  /** Asks the sender's phone to upload the file again; resolves with the new reference. */
  reupload(messageId: string, source: MediaSource): Promise<MediaSource>;
}

export interface InboundMediaSettings {
  limits: DownloadLimits;
  /** Protocol ms a received file (and its link) is kept. */
  retentionMs: number;
  perInstance: number;
  total: number;
}

interface InboundMediaDeps {
  repo: Pick<MediaRepo, 'add' | 'find' | 'stored' | 'failed'>;
  store: MediaStore;
  signer: MediaUrlSigner;
  guard: AddressGuard;
  agent: Agent | undefined;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  settings: InboundMediaSettings;
  /** The live link of an instance, or null while it has none. */
  network(instanceId: string): MediaNetwork | null;
  /** The instance's proxy, when it has one: its downloads go through it instead of `agent`. */
  proxyOf?(instanceId: string): Promise<HttpAgent | undefined>;
}

/** One file of a received message, as the message describes it. */
export interface MediaPart {
  /** Which file of the message (main, thumbnail). */
  part: 'file' | 'thumbnail';
  mimetype: string;
  fileName: string | null;
  /** A file to download, or bytes the message carries inline (thumbnails). */
  source: MediaSource | { inline: Buffer };
}

/** A file's id: deterministic per (instance, message, part), so a redelivered message gets the same links. */
export function mediaFileId(instanceId: string, messageId: string, part: string): string {
  return `${instanceId}.${messageId}.${part}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async take(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
  get idle(): boolean {
    return this.used === 0 && this.waiting.length === 0;
  }
}

export class InboundMedia {
  private readonly inFlight = new Map<string, Promise<MediaFileRow>>();
  private readonly total: Slots;
  private readonly perInstance = new Map<string, Slots>();
  /** The last media host any link reported: files can be fetched while their instance reconnects. */
  private knownHost: string | null = null;

  constructor(private readonly deps: InboundMediaDeps) {
    this.total = new Slots(deps.settings.total);
  }


  /** Records a message's files and returns their links, by part. */
  async register(instanceId: string, messageId: string, parts: readonly MediaPart[]): Promise<Map<MediaPart['part'], string>> {
    const now = this.deps.clock.now();
    const expiresAt = now + this.deps.settings.retentionMs;
    const rows: NewMediaFile[] = [];
    const links = new Map<MediaPart['part'], string>();
    for (const p of parts) {
      const id = mediaFileId(instanceId, messageId, p.part);
      const inline = 'inline' in p.source ? p.source.inline : null;
      const stored = inline ? { sha256: await this.deps.store.put(inline), size: inline.length } : undefined;
      rows.push({
        id,
        instanceId,
        messageId,
        kind: p.part,
        mimetype: p.mimetype,
        fileName: p.fileName,
        ...(stored ? { stored } : {}),
        source: inline ? '{}' : JSON.stringify(p.source),
        createdAt: now,
        expiresAt,
      });
      links.set(p.part, this.deps.signer.url(id, expiresAt));
    }
    await this.deps.repo.add(rows);
    return links;
  }

  /** Starts the downloads of these files in the background. */
  prefetch(ids: readonly string[]): void {
    for (const id of ids) void this.ensure(id).catch(() => undefined);
  }

  /**
   * The file's row once it is stored, downloading it if needed (one download per file at a time).
   * Rejects with the reason when it cannot be had now.
   */
  ensure(id: string): Promise<MediaFileRow> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const job = this.fetch(id).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, job);
    return job;
  }

  /** Resolves when no download is running or waiting (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  private slotsOf(instanceId: string): Slots {
    let s = this.perInstance.get(instanceId);
    if (!s) {
      s = new Slots(this.deps.settings.perInstance);
      this.perInstance.set(instanceId, s);
    }
    return s;
  }

  private async fetch(id: string): Promise<MediaFileRow> {
    const row = await this.deps.repo.find(id);
    if (!row) throw new Error('no such media file');
    if (row.status === 'stored') return row;
    const mine = this.slotsOf(row.instance_id);
    await mine.take();
    await this.total.take();
    try {
      let source = JSON.parse(row.source) as MediaSource;
      const network = this.deps.network(row.instance_id);
      const host = network ? await network.mediaHost() : this.knownHost;
      if (!host) throw new Error('the instance is not connected, and no media host is known yet');
      this.knownHost = host;
      const proxy = await this.deps.proxyOf?.(row.instance_id);
      const deps = { store: this.deps.store, guard: this.deps.guard, agent: proxy ?? this.deps.agent, limits: this.deps.settings.limits, clock: this.deps.clock };
      let result: { sha256: string; size: number };
      let updated: string | undefined;
      try {
        result = await downloadMedia(source, host, deps);
      } catch (err) {
        if (!(err instanceof MediaGoneError) || !network) throw err;
        source = await network.reupload(row.message_id, source);
        updated = JSON.stringify(source);
        result = await downloadMedia(source, host, deps);
        this.deps.metrics.mediaDownloads.inc({ result: 'reuploaded' });
      }
      await this.deps.repo.stored(id, result.sha256, result.size, updated);
      this.deps.metrics.mediaDownloads.inc({ result: 'stored' });
      return { ...row, status: 'stored', sha256: result.sha256, size: result.size, error: null };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.deps.metrics.mediaDownloads.inc({ result: 'failed' });
      this.deps.log.warn({ instanceId: row.instance_id, mediaId: id, reason }, 'media download failed');
      await this.deps.repo.failed(id, reason).catch(() => undefined);
      throw new Error(reason, { cause: err });
    } finally {
      this.total.give();
      mine.give();
      if (mine.idle) this.perInstance.delete(row.instance_id);
    }
  }
}
