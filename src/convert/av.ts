// Audio and video for sending, converted by ffmpeg in a child process (ffmpeg.ts bounds its time,
// memory and CPU): voice notes become Ogg/Opus mono with their length and waveform; videos
// become MP4 (H.264/AAC, yuv420p, faststart) that every WhatsApp client plays.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sendFailures } from '../domain/send-failure.js';
import { ToolError, durationOf, probe, runTool, withTempDir, type Probe } from './ffmpeg.js';
import type { MediaLimits } from './limits.js';
import type { Semaphore } from './semaphore.js';
import { sniff } from './sniff.js';

export interface PreparedAudio {
  data: Buffer;
  mimetype: string;
  seconds: number;
  /** 64 samples, 0–100: the bars WhatsApp draws for a voice note. */
  waveform: Uint8Array;
}

export type VideoMode = 'video' | 'ptv' | 'gif';

export interface PreparedVideo {
  data: Buffer;
  mimetype: string;
  width: number;
  height: number;
  seconds: number;
  thumbnail: Buffer | undefined;
}

const WAVE_RATE = 8000;
const WAVE_BARS = 64;
/** Side of a round video note (WhatsApp's are square). */
const PTV_SIDE = 480;

function toolFailure(what: string, err: unknown): Error {
  if (err instanceof ToolError) {
    if (err.timedOut) return sendFailures.conversionFailed(`${what}: the conversion took too long`, false, err);
    return sendFailures.invalidMedia(`${what}: the file could not be converted (${err.message})`, err);
  }
  if (err instanceof SyntaxError) return sendFailures.invalidMedia(`${what}: the file could not be read`, err);
  return err instanceof Error ? err : new Error(String(err));
}

async function probed(file: string, what: string, limits: MediaLimits): Promise<Probe> {
  try {
    return await probe(file, limits);
  } catch (err) {
    throw toolFailure(what, err);
  }
}

function checkSize(data: Buffer, what: string, limits: MediaLimits): void {
  if (data.length === 0) throw sendFailures.invalidMedia(`${what}: the payload is empty`);
  if (data.length > limits.maxBytes) throw sendFailures.tooLarge(`${what}: ${data.length} bytes is more than the limit of ${limits.maxBytes}`);
}

function checkSeconds(p: Probe, what: string, limits: MediaLimits): void {
  const seconds = durationOf(p);
  if (seconds > limits.maxSeconds) throw sendFailures.tooLarge(`${what}: ${Math.round(seconds)} s is longer than the limit of ${limits.maxSeconds} s`);
}

/** 16-bit mono PCM → WhatsApp's 64-bar waveform (mean absolute level per bar, scaled to 0–100). */
export function waveformOf(pcm: Buffer): Uint8Array {
  const samples = Math.floor(pcm.length / 2);
  const bars = new Float64Array(WAVE_BARS);
  const per = Math.max(1, Math.floor(samples / WAVE_BARS));
  for (let bar = 0; bar < WAVE_BARS; bar++) {
    let sum = 0;
    const start = bar * per;
    const end = Math.min(samples, start + per);
    for (let i = start; i < end; i++) sum += Math.abs(pcm.readInt16LE(i * 2));
    bars[bar] = end > start ? sum / (end - start) : 0;
  }
  const peak = Math.max(...bars);
  return Uint8Array.from(bars, (v) => (peak > 0 ? Math.floor((100 * v) / peak) : 0));
}

/** Any audio (or a video's sound) → a voice note: Ogg/Opus, mono, 48 kHz. */
export async function prepareVoiceNote(data: Buffer, limits: MediaLimits, slots: Semaphore): Promise<PreparedAudio> {
  const what = 'audio';
  checkSize(data, what, limits);
  const { family, mimetype } = sniff(data);
  if (family !== 'audio' && family !== 'video') {
    throw sendFailures.invalidMedia(`${what}: the payload is not audio (${family === 'other' ? 'unknown data' : mimetype})`);
  }
  return slots.run(() =>
    withTempDir(async (dir) => {
      const input = join(dir, 'in');
      await writeFile(input, data);
      const p = await probed(input, what, limits);
      if (!p.streams.some((s) => s.codec_type === 'audio')) throw sendFailures.invalidMedia(`${what}: the file has no sound`);
      checkSeconds(p, what, limits);
      const ogg = join(dir, 'out.ogg');
      const pcm = join(dir, 'wave.pcm');
      try {
        // One decode, two outputs: the voice note and a low-rate PCM copy for its waveform.
        await runTool(
          'ffmpeg',
          ['-nostdin', '-v', 'error', '-threads', '1', '-i', input, '-t', String(limits.maxSeconds),
            '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-compression_level', '5', '-application', 'voip', '-f', 'ogg', ogg,
            '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(WAVE_RATE), '-f', 's16le', pcm],
          limits,
        );
      } catch (err) {
        throw toolFailure(what, err);
      }
      const wave = await readFile(pcm);
      return {
        data: await readFile(ogg),
        mimetype: 'audio/ogg; codecs=opus',
        seconds: Math.max(1, Math.round(wave.length / 2 / WAVE_RATE)),
        waveform: waveformOf(wave),
      };
    }),
  );
}

/** Scales the longest side down to `side` (never up), keeping both sides even for H.264. */
function scaleFilter(side: number): string {
  return `scale=w='min(${side},iw)':h='min(${side},ih)':force_original_aspect_ratio=decrease,scale=trunc(iw/2)*2:trunc(ih/2)*2`;
}

/**
 * Video → MP4 WhatsApp plays. `ptv` (round video note): cropped square. `gif`: no sound, shown
 * looping (gifPlayback); GIF images are accepted there too. An MP4 that already fits (H.264
 * yuv420p, AAC or no sound, within the size bound) is only remuxed, not re-encoded.
 */
export async function prepareVideo(data: Buffer, mode: VideoMode, limits: MediaLimits, slots: Semaphore): Promise<PreparedVideo> {
  const what = mode === 'video' ? 'video' : mode;
  checkSize(data, what, limits);
  const { family, mimetype } = sniff(data);
  const gifImage = mode === 'gif' && mimetype === 'image/gif';
  if (family !== 'video' && !gifImage) {
    throw sendFailures.invalidMedia(`${what}: the payload is not a video (${family === 'other' ? 'unknown data' : mimetype})`);
  }
  return slots.run(() =>
    withTempDir(async (dir) => {
      const input = join(dir, 'in');
      await writeFile(input, data);
      const p = await probed(input, what, limits);
      const v = p.streams.find((s) => s.codec_type === 'video');
      if (!v) throw sendFailures.invalidMedia(`${what}: the file has no picture`);
      if ((v.width ?? 0) * (v.height ?? 0) > limits.maxPixels) {
        throw sendFailures.tooLarge(`${what}: ${v.width}×${v.height} pixels is more than the limit of ${limits.maxPixels}`);
      }
      checkSeconds(p, what, limits);
      const audio = p.streams.find((s) => s.codec_type === 'audio');
      const fits =
        mode !== 'ptv' &&
        /mp4|mov/.test(p.format.format_name ?? '') &&
        v.codec_name === 'h264' &&
        v.pix_fmt === 'yuv420p' &&
        Math.max(v.width ?? 0, v.height ?? 0) <= limits.videoMaxSide &&
        (!audio || audio.codec_name === 'aac' || mode === 'gif');
      const filter = mode === 'ptv' ? `crop='min(iw,ih)':'min(iw,ih)',scale=${PTV_SIDE}:${PTV_SIDE}` : scaleFilter(limits.videoMaxSide);
      const videoArgs = fits
        ? ['-c:v', 'copy']
        : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '28', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-vf', filter];
      const audioArgs = mode === 'gif' || !audio ? ['-an'] : audio.codec_name === 'aac' && fits ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'];
      const out = join(dir, 'out.mp4');
      const thumb = join(dir, 'thumb.jpg');
      try {
        await runTool(
          'ffmpeg',
          ['-nostdin', '-v', 'error', '-threads', '2', '-i', input, '-t', String(limits.maxSeconds),
            '-map', '0:v:0', ...(audio && mode !== 'gif' ? ['-map', '0:a:0'] : []), ...videoArgs, ...audioArgs,
            '-movflags', '+faststart', '-f', 'mp4', out,
            '-map', '0:v:0', '-frames:v', '1', '-vf', 'scale=96:-2', '-f', 'image2', thumb],
          limits,
        );
      } catch (err) {
        throw toolFailure(what, err);
      }
      const result = await probed(out, what, limits);
      const ov = result.streams.find((s) => s.codec_type === 'video');
      return {
        data: await readFile(out),
        mimetype: 'video/mp4',
        width: ov?.width ?? 0,
        height: ov?.height ?? 0,
        seconds: Math.max(1, Math.round(durationOf(result))),
        thumbnail: await readFile(thumb).catch(() => undefined),
      };
    }),
  );
}
