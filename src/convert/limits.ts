// The bounds every media payload is held to, from the settings (ZAPGATE_MEDIA_*). One tenant's
// media must never be able to take the memory, CPU or time the other tenants need.

export interface MediaLimits {
  /** Largest payload accepted (data URI or download), bytes. */
  readonly maxBytes: number;
  /** Largest image decoded, in pixels (width × height of the source). */
  readonly maxPixels: number;
  /** Longest side of an image after conversion (larger ones are scaled down). */
  readonly imageMaxSide: number;
  /** Longest side of a video after conversion. */
  readonly videoMaxSide: number;
  /** Longest audio or video accepted, seconds. */
  readonly maxSeconds: number;
  /** Wall-clock ms a download may take. */
  readonly fetchTimeoutMs: number;
  /** Wall-clock ms one conversion (ffmpeg run, image decode) may take before it is killed. */
  readonly convertTimeoutMs: number;
  /** Address space of one ffmpeg/ffprobe child, MiB. */
  readonly convertMemoryMb: number;
  /** Conversions running at once, across every instance. */
  readonly concurrentConversions: number;
  /** ffmpeg/ffprobe binaries (default: the ones @ffmpeg-installer/@ffprobe-installer ship). */
  readonly ffmpegPath?: string | undefined;
  readonly ffprobePath?: string | undefined;
}

export const DEFAULT_MEDIA_LIMITS: MediaLimits = Object.freeze({
  maxBytes: 16 * 1024 * 1024,
  maxPixels: 50_000_000,
  imageMaxSide: 1600,
  videoMaxSide: 1280,
  maxSeconds: 900,
  fetchTimeoutMs: 30_000,
  convertTimeoutMs: 120_000,
  convertMemoryMb: 1024,
  concurrentConversions: 2,
});

/** Sticker size WhatsApp requires. */
export const STICKER_SIDE = 512;
