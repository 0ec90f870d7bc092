// A failure at start, explained in one line that names the setting to change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseWhere, explainStartError } from '../../src/start-errors.js';

const sqlite = { host: '0.0.0.0', port: 3000, dataDir: '/srv/zapgate', databaseUrl: undefined };
const postgres = { ...sqlite, databaseUrl: 'postgres://zap:s3cr3t-pw@db.internal:6543/zapgate' };

function sysError(code: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(`${String(fields.syscall ?? 'op')} ${code}: something`), { code, ...fields });
}

test('listen failures name ZAPGATE_PORT or ZAPGATE_HOST', () => {
  assert.match(explainStartError(sysError('EADDRINUSE', { syscall: 'listen', port: 3000 }), sqlite), /port 3000 is already in use on 0\.0\.0\.0.*ZAPGATE_PORT/);
  assert.match(explainStartError(sysError('EACCES', { syscall: 'listen', port: 80 }), { ...sqlite, port: 80 }), /below 1024.*ZAPGATE_PORT/);
  assert.match(explainStartError(sysError('EADDRNOTAVAIL', { syscall: 'listen', port: 3000 }), { ...sqlite, host: '10.9.9.9' }), /10\.9\.9\.9 is not an address of this machine; set ZAPGATE_HOST/);
  // Another listener's port (the demo's simnet) is not blamed on ZAPGATE_PORT.
  assert.doesNotMatch(explainStartError(sysError('EADDRINUSE', { syscall: 'listen', port: 7080 }), sqlite), /ZAPGATE_PORT/);
});

test('a data dir that cannot be written names ZAPGATE_DATA_DIR', () => {
  for (const code of ['EACCES', 'EROFS', 'ENOTDIR', 'EPERM']) {
    const line = explainStartError(sysError(code, { syscall: 'mkdir', path: '/srv/zapgate' }), sqlite);
    assert.match(line, /cannot write the data dir \/srv\/zapgate .*set ZAPGATE_DATA_DIR/, `${code}: ${line}`);
  }
  assert.match(explainStartError(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }), sqlite), /ZAPGATE_DATA_DIR/);
});

test('a program that cannot be run is named as missing, not blamed on the data dir', () => {
  const line = explainStartError(sysError('ENOENT', { syscall: 'spawnSync ffmpeg', path: 'ffmpeg' }), sqlite);
  assert.match(line, /^the command ffmpeg is not installed/, line);
  assert.doesNotMatch(line, /data dir|ZAPGATE_DATA_DIR/, line);
});

test('a database that cannot be used names ZAPGATE_DATABASE_URL, by host and port, never its password', () => {
  const cases: [Error, RegExp][] = [
    [sysError('ECONNREFUSED', { syscall: 'connect' }), /connect ECONNREFUSED/],
    [sysError('ENOTFOUND', { syscall: 'getaddrinfo' }), /ENOTFOUND/],
    [Object.assign(new Error('password authentication failed for user "zap"'), { code: '28P01' }), /password authentication failed/],
    [Object.assign(new Error('database "zapgate" does not exist'), { code: '3D000' }), /does not exist/],
  ];
  for (const [err, detail] of cases) {
    const line = explainStartError(err, postgres);
    assert.match(line, /^cannot use the PostgreSQL database at db\.internal:6543\/zapgate: /, line);
    assert.match(line, detail, line);
    assert.match(line, /check ZAPGATE_DATABASE_URL/, line);
    assert.doesNotMatch(line, /s3cr3t-pw/, `no password: ${line}`);
  }
  assert.equal(databaseWhere('postgres://u:p@h/db'), 'h:5432/db');
  assert.equal(databaseWhere('not a url'), 'an unparsable URL');
});

test('anything else: its first line, unchanged', () => {
  assert.equal(explainStartError(new Error('boom\n    at somewhere'), sqlite), 'boom');
  assert.equal(explainStartError('plain', undefined), 'plain');
});
