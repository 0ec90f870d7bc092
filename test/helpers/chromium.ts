// Real Chromium for the browser tests: Debian's `chromium` driven by playwright-core (which brings
// no browser of its own). A machine without it gets it installed here, once: test files run in
// parallel, so the first one takes a lock (an exclusive-create file) and the others wait for it.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const LOCK = join(tmpdir(), 'zapgate-chromium-install.lock');
/** apt-get on a cold cache downloads ~100 MB: generous, but bounded. */
const INSTALL_LIMIT_MS = 15 * 60_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function run(cmd: string, args: string[]): { ok: boolean; output: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: INSTALL_LIMIT_MS, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-2000) };
}

function installChromium(): void {
  // A fresh container may have no package lists yet: update once if the first try finds nothing.
  // Another apt run on the machine holds dpkg's lock for a while: wait for it rather than fail.
  const install = ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', 'chromium'];
  let r = run('apt-get', install);
  if (!r.ok) {
    run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update']);
    r = run('apt-get', install);
  }
  if (!r.ok || !existsSync(CHROMIUM)) {
    throw new Error(`installing chromium with apt-get failed (the browser tests need ${CHROMIUM}; run as root: apt-get install -y chromium):\n${r.output}`);
  }
}

/** Makes sure /usr/bin/chromium exists, installing it (once, under a lock) when it does not. */
export async function ensureChromium(): Promise<string> {
  const deadline = Date.now() + INSTALL_LIMIT_MS;
  while (!existsSync(CHROMIUM)) {
    let fd: number | null = null;
    try {
      fd = openSync(LOCK, 'wx');
    } catch {
      // Someone else installs; a lock older than the install limit was left by a killed run.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > INSTALL_LIMIT_MS) unlinkSync(LOCK);
      } catch {
        // gone meanwhile: try again
      }
      if (Date.now() > deadline) throw new Error(`waited ${INSTALL_LIMIT_MS} ms for another test to install chromium (lock ${LOCK})`);
      await sleep(500);
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
      if (!existsSync(CHROMIUM)) installChromium();
    } finally {
      closeSync(fd);
      rmSync(LOCK, { force: true });
    }
  }
  return CHROMIUM;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile, nothing reaching out to the network on its own. */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const executablePath = await ensureChromium();
  const profile = mkdtempSync(join(tmpdir(), 'zapgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 120_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What a page must never do, collected as it happens: an error in its console and, as asked, an
 * uncaught error, a request the server refused (401/403: a control shown to a key that may not use
 * it), or a secret in a request's URL. Tests assert the list stays empty.
 */
export function pageProblems(page: Page, watch: { uncaught?: boolean; refused?: boolean; secretInUrl?: string } = {}): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${m.text()} (${m.location().url})`);
  });
  if (watch.uncaught) page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  if (watch.refused) {
    page.on('response', (res) => {
      if (res.status() === 401 || res.status() === 403) problems.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
    });
  }
  const secret = watch.secretInUrl;
  if (secret) {
    page.on('request', (r) => {
      if (r.url().includes(secret)) problems.push(`the Client-Token in a URL: ${r.method()} ${new URL(r.url()).pathname}`);
    });
  }
  return problems;
}
