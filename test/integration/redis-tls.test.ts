/**
 * `rediss://` with an ACL user, on a redis-server that speaks TLS only (a private CA made here with openssl): the
 * bot's config and connections log in over TLS, and refuse a certificate they cannot trust.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../helpers/compiled.js';
import { uniquePrefix } from '../helpers/redis.js';
import { LOCAL_ACL } from '../helpers/redis-cluster.js';
import { freePorts, RedisProcess } from '../helpers/redis-process.js';

const run = promisify(execFile);
let dir: string;
let server: RedisProcess | undefined;
let tlsPort = 0;

async function makeCertificates(): Promise<void> {
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=gateway-bot test CA',
  );
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
}

/** Runs test/fixtures/redis-login.ts with this environment and answers its JSON line. */
async function login(env: Record<string, string>): Promise<{ ok: boolean; error?: string }> {
  const { stdout } = await run(process.execPath, nodeArgsFor('test/fixtures/redis-login.ts'), {
    env: { PATH: process.env.PATH ?? '', REDIS_PREFIX: `{${uniquePrefix('tls')}}`, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-bot-tls-'));
  await makeCertificates();
  const [adminPort = 0, port = 0] = await freePorts(2);
  tlsPort = port;
  server = RedisProcess.make(
    adminPort,
    [
      '--tls-port',
      String(port),
      '--tls-cert-file',
      join(dir, 'server.pem'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      join(dir, 'ca.pem'),
      '--tls-auth-clients',
      'no',
      '--user',
      LOCAL_ACL.user,
      'on',
      `>${LOCAL_ACL.password}`,
      '~*',
      '&*',
      '+@all',
    ],
    'tls',
  );
  await server.start();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('rediss:// with an ACL user', () => {
  it("logs in over TLS as the URL's user and runs BullMQ's scripts", async () => {
    const url = `rediss://${LOCAL_ACL.user}:${LOCAL_ACL.password}@127.0.0.1:${tlsPort}`;
    expect(await login({ REDIS_URL: url, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') })).toEqual({
      ok: true,
      counts: { waiting: 0 },
    });
  }, 60_000);

  it('refuses a wrong password, plain redis:// on the TLS port, and a certificate it cannot trust', async () => {
    const ca = { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') };
    const wrong = await login({ REDIS_URL: `rediss://${LOCAL_ACL.user}:wrong@127.0.0.1:${tlsPort}`, ...ca });
    expect(wrong.ok).toBe(false);
    const plain = await login({
      REDIS_URL: `redis://${LOCAL_ACL.user}:${LOCAL_ACL.password}@127.0.0.1:${tlsPort}`,
      ...ca,
    });
    expect(plain.ok).toBe(false);
    const untrusted = await login({
      REDIS_URL: `rediss://${LOCAL_ACL.user}:${LOCAL_ACL.password}@127.0.0.1:${tlsPort}`,
    });
    expect(untrusted.ok).toBe(false);
  }, 60_000);
});
