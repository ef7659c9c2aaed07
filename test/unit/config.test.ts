import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration, parseRate } from '../../src/config.js';

describe('config', () => {
  it('gives the contract’s defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.redis).toMatchObject({ url: 'redis://127.0.0.1:6379', prefix: 'gw', form: 'single' });
    expect(config.role).toBe('all');
    expect(config.guardedActions).toEqual(['deploy_blog', 'send_prospect_email']);
    expect(config.gateway.actionRate).toEqual({ max: 10, windowMs: 60_000 });
    expect(config.gateway.actionTimeoutMs).toBe(30_000);
    expect(config.approvalTtlMs).toBe(24 * 3_600_000);
    expect(config.slack.mode).toBe('http');
    expect(Object.isFrozen(config.gateway)).toBe(true);
  });

  it('uses the admins as approvers unless approvers are named', () => {
    expect(loadConfig({ GATEWAY_ADMINS: 'U1,U2' }).approvers).toEqual(['U1', 'U2']);
    expect(loadConfig({ GATEWAY_ADMINS: 'U1', GATEWAY_APPROVERS: 'S9' }).approvers).toEqual(['S9']);
  });

  it('guards deploys and emails always: GATEWAY_GUARDED_ACTIONS only adds, in any case, blank means unset', () => {
    const guarded = (value: string) => loadConfig({ GATEWAY_GUARDED_ACTIONS: value }).guardedActions;
    expect(guarded('')).toEqual(['deploy_blog', 'send_prospect_email']);
    expect(guarded('  ,  ')).toEqual(['deploy_blog', 'send_prospect_email']);
    expect(guarded('Generate_Blog')).toEqual(['deploy_blog', 'send_prospect_email', 'generate_blog']);
    expect(guarded('send_prospect_email DEPLOY_BLOG')).toEqual(['deploy_blog', 'send_prospect_email']);
  });

  it('takes GATEWAY_BASE_URL=sandbox as the explicit choice of the built-in sandbox', () => {
    expect(loadConfig({ GATEWAY_BASE_URL: 'sandbox' }).gateway).toMatchObject({
      baseUrl: undefined,
      sandbox: true,
    });
    expect(loadConfig({}).gateway.sandbox).toBe(false);
    expect(loadConfig({ GATEWAY_BASE_URL: 'https://gw.example/api' }).gateway).toMatchObject({
      baseUrl: 'https://gw.example/api',
      sandbox: false,
    });
  });

  it('picks Redis Cluster or Sentinel from their node lists, and refuses a cluster prefix without a hash tag', () => {
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: 'r1:7000, r2:7001,[::1]:7002', REDIS_PREFIX: '{gw}' });
    expect(cluster.redis).toMatchObject({
      form: 'cluster',
      prefix: '{gw}',
      clusterNodes: [
        { host: 'r1', port: 7000 },
        { host: 'r2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'r1:7000', REDIS_PREFIX: 'gw' })).toThrow(
      'REDIS_PREFIX "gw" has no {hash tag}: on a Redis Cluster every key of the bot and its queues must share one slot, so wrap the prefix in braces (REDIS_PREFIX={gw})',
    );
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'r1:7000', REDIS_PREFIX: 'gw{}x' })).toThrow('{hash tag}');
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'r1', REDIS_PREFIX: '{gw}' })).toThrow(
      'REDIS_CLUSTER_NODES: "r1" is not host:port',
    );
    const sentinel = loadConfig({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'main' });
    expect(sentinel.redis).toMatchObject({ form: 'sentinel', sentinelName: 'main' });
    expect(() => loadConfig({ REDIS_SENTINELS: 's1:26379', REDIS_CLUSTER_NODES: 'r1:7000' })).toThrow(
      'REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set',
    );
  });

  it('picks Socket Mode when an app token is set', () => {
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-x', SLACK_APP_TOKEN: 'xapp-1-abc' }).slack.mode).toBe(
      'socket',
    );
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ ROLE: 'cook' }, 'ROLE must be one of web, worker, scheduler, mcp, all'],
    [{ MCP_MAX_IN_FLIGHT: '0' }, 'MCP_MAX_IN_FLIGHT must be at least 1'],
    [{ MCP_CALL_PAGES: 'many' }, 'MCP_CALL_PAGES must be a whole number'],
    [{ GATEWAY_ACTION_RATE: 'fast' }, 'GATEWAY_ACTION_RATE: "fast" is not a rate'],
    [{ GATEWAY_APPROVAL_TTL: 'soon' }, 'GATEWAY_APPROVAL_TTL'],
    [{ GATEWAY_ADMINS: 'ana' }, 'GATEWAY_ADMINS'],
    [{ GATEWAY_ADMINS: 'U1,S0ADMINS' }, 'GATEWAY_ADMINS: takes user ids only (U0123ABCD), not user groups'],
    [{ SLACK_BOT_TOKEN: 'xoxb-x' }, 'SLACK_SIGNING_SECRET is required in HTTP mode'],
    [{ SLACK_APP_TOKEN: 'xoxb-wrong' }, 'SLACK_APP_TOKEN'],
    [{ DIGEST_TZ: 'Mars/Base' }, 'DIGEST_TZ'],
    [{ REDIS_URL: 'localhost' }, 'REDIS_URL'],
    [{ SANDBOX_ERROR_RATE: '2' }, 'SANDBOX_ERROR_RATE'],
    [
      { GATEWAY_GUARDED_ACTIONS: 'deploy-blog' },
      'GATEWAY_GUARDED_ACTIONS: action names look like deploy_blog',
    ],
  ])('refuses %o naming the variable and the fix', (env, expected) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(expected);
  });

  it.each([
    'http://gateway.example.com/functions/v1/gateway',
    'http://10.0.0.5:8080/gateway',
    'http://127.0.0.1.evil.example/gateway',
    'ftp://gateway.example.com/',
  ])('refuses a gateway address the key would travel to in clear text: %s', (url) => {
    expect(() => loadConfig({ GATEWAY_BASE_URL: url })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_BASE_URL: url })).toThrow(
      /GATEWAY_BASE_URL must start with https:\/\//,
    );
  });

  it.each([
    'https://gateway.example.com/functions/v1/gateway',
    'http://127.0.0.1:4010/gateway',
    'http://127.8.9.10/gateway',
    'http://localhost:4010/gateway',
    'http://[::1]:4010/gateway',
  ])('accepts https anywhere and http on loopback: %s', (url) => {
    expect(loadConfig({ GATEWAY_BASE_URL: url }).gateway.baseUrl).toBe(url);
  });

  it.each([
    'http://slack.example.com/api/',
    'http://10.0.0.5:8080/api/',
    'http://127.0.0.1.evil.example/api/',
  ])('refuses a Slack API address the bot token would travel to in clear text: %s', (url) => {
    expect(() => loadConfig({ SLACK_API_URL: url })).toThrow(/SLACK_API_URL must start with https:\/\//);
  });

  it.each(['https://slack.com/api/', 'http://127.0.0.1:3100/api/', 'http://localhost:3100/api/'])(
    'accepts a Slack API address over https, or http on loopback: %s',
    (url) => {
      expect(loadConfig({ SLACK_API_URL: url }).slack.apiUrl).toBe(url);
    },
  );

  it('reads the read deadline and the metrics token, refusing a short token', () => {
    expect(loadConfig({}).gateway.readTimeoutMs).toBe(20_000);
    expect(loadConfig({ GATEWAY_READ_TIMEOUT: '5s' }).gateway.readTimeoutMs).toBe(5_000);
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token' }).metricsToken).toBe('a-long-enough-token');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 16/);
  });

  it('reads members and allowed actions, lower-casing action names', () => {
    const config = loadConfig({ GATEWAY_MEMBERS: 'U1, S2', GATEWAY_ALLOWED_ACTIONS: 'Generate_FAQ,foo_bar' });
    expect(config.members).toEqual(['U1', 'S2']);
    expect(config.allowedActions).toEqual(['generate_faq', 'foo_bar']);
    expect(loadConfig({}).members).toEqual([]);
    expect(() => loadConfig({ GATEWAY_MEMBERS: 'bob' })).toThrow('GATEWAY_MEMBERS');
    expect(() => loadConfig({ GATEWAY_ALLOWED_ACTIONS: 'rm -rf' })).toThrow('GATEWAY_ALLOWED_ACTIONS');
  });

  // Every variable the config reads as a duration, found in its source, so a new one is held to it too.
  const durations = [
    ...readFileSync(new URL('../../src/config/env-schema.ts', import.meta.url), 'utf8').matchAll(
      /duration\('([A-Z][A-Z0-9_]+)'/g,
    ),
  ].map((m) => m[1] as string);

  it('finds the duration variables', () => {
    expect(durations).toEqual(expect.arrayContaining(['GATEWAY_APPROVAL_TTL', 'DIGEST_NOW_COOLDOWN']));
  });

  it.each(durations)('refuses a bare number for %s, saying which units to write', (name) => {
    expect(() => loadConfig({ [name]: '1' })).toThrow(
      `${name}: "1" has no unit; write 1s, 1m or 1h (s seconds, m minutes, h hours, d days)`,
    );
    expect(() => loadConfig({ [name]: '1s' })).not.toThrow();
  });

  it('turns assistant sign-in on with the app’s OAuth client only, both halves, on a safe Slack web host', () => {
    expect(loadConfig({}).signIn).toBeUndefined();
    const on = loadConfig({
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 's3cret',
      OAUTH_METADATA_ALLOWED_HOSTS: 'Agent.Intranet.example:8443, 10.0.0.5',
    }).signIn;
    expect(on).toEqual({
      clientId: '123.456',
      clientSecret: 's3cret',
      webUrl: 'https://slack.com',
      metadataAllowedHosts: ['agent.intranet.example:8443', '10.0.0.5'],
    });
    expect(() => loadConfig({ SLACK_CLIENT_ID: '123.456' })).toThrow(/SLACK_CLIENT_SECRET.*go together/);
    expect(() => loadConfig({ SLACK_WEB_URL: 'http://slack.example' })).toThrow(
      /SLACK_WEB_URL must start with https/,
    );
    expect(
      loadConfig({ SLACK_CLIENT_ID: 'a', SLACK_CLIENT_SECRET: 'b', SLACK_WEB_URL: 'http://127.0.0.1:9/' })
        .signIn?.webUrl,
    ).toBe('http://127.0.0.1:9');
    expect(() => loadConfig({ OAUTH_METADATA_ALLOWED_HOSTS: 'https://x.example/' })).toThrow(
      /OAUTH_METADATA_ALLOWED_HOSTS/,
    );
  });

  it('parses durations and rates', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('15')).toBeUndefined();
    expect(parseDuration('later')).toBeUndefined();
    expect(parseRate('10/60')).toBeUndefined();
    expect(parseRate('20/1s')).toEqual({ max: 20, windowMs: 1_000 });
    expect(parseRate('100/m')).toEqual({ max: 100, windowMs: 60_000 });
    expect(parseRate('0/1s')).toBeUndefined();
  });

  it('.env.sample lists every variable the config reads', () => {
    const sample = readFileSync(new URL('../../.env.sample', import.meta.url), 'utf8');
    const source = readFileSync(new URL('../../src/config/env-schema.ts', import.meta.url), 'utf8');
    const read = [...source.matchAll(/^\s{4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(20);
    for (const name of read) expect(sample).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});
