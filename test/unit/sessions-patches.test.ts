// installBaileysPatches puts every process-wide patch in place: the network root, the native
// signature check (a security fix: Baileys' own Curve.verify let every well-formed signature
// through), the key-pair pool and the quiet libsignal console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Curve, WA_CERT_DETAILS } from 'baileys';
import { pino } from 'pino';
import { installBaileysPatches } from '../../src/sessions/patches/index.js';
import { xeddsaVerify } from '../../src/sessions/patches/xeddsa.js';

test('after installBaileysPatches each patch is in place', () => {
  const generateKeyPair = Curve.generateKeyPair;
  const consoleLog = console.log;
  const root = Buffer.alloc(32, 7);
  installBaileysPatches({ waRootKey: root.toString('base64'), log: pino({ level: 'silent' }) });
  assert.equal(Curve.verify, xeddsaVerify, 'signatures are checked by the native xeddsa verify');
  assert.notEqual(Curve.generateKeyPair, generateKeyPair, 'key pairs come from the pool');
  assert.notEqual(console.log, consoleLog, "libsignal's console lines are filtered");
  assert.deepEqual(WA_CERT_DETAILS.PUBLIC_KEY, root, 'the configured network root is trusted');
  // Idempotent: a second call changes nothing.
  const verify = Curve.verify;
  const draw = Curve.generateKeyPair;
  installBaileysPatches({ waRootKey: root.toString('base64'), log: pino({ level: 'silent' }) });
  assert.equal(Curve.verify, verify);
  assert.equal(Curve.generateKeyPair, draw);
});
