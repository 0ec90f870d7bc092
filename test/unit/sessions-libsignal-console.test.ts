// libsignal's console lines carry session records with private keys: they must never be printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { quietLibsignalConsole } from '../../src/sessions/patches/libsignal-console.js';

test('libsignal session dumps are kept off the console and logged without their key material', () => {
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  // As main.ts installs it: a child logger that names the component once.
  quietLibsignalConsole(createLogger('debug', sink).child({ component: 'libsignal' }));

  const printed: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);
  const realErrWrite = process.stderr.write.bind(process.stderr);
  const capture = (chunk: string | Uint8Array): boolean => {
    printed.push(String(chunk));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  try {
    const session = { currentRatchet: { ephemeralKeyPair: { privKey: 'PRIVATE-KEY-BYTES' }, rootKey: 'ROOT-KEY-BYTES' } };
    console.info('Closing session:', session);
    console.warn('Closing open session in favor of incoming prekey bundle');
    console.info('Opening session:', session);
    console.info('an unrelated line');
  } finally {
    process.stdout.write = realWrite;
    process.stderr.write = realErrWrite;
  }

  const out = printed.join('');
  assert.doesNotMatch(out, /PRIVATE-KEY-BYTES|ROOT-KEY-BYTES|Closing session|Opening session/);
  assert.match(out, /an unrelated line/, 'other console output is untouched');
  const logs = logged.join('');
  assert.match(logs, /Closing session/);
  assert.doesNotMatch(logs, /PRIVATE-KEY-BYTES|ROOT-KEY-BYTES/);
  for (const line of logs.trim().split('\n')) {
    assert.equal(line.match(/"component":/g)?.length, 1, `one component key per line: ${line}`);
  }
});
