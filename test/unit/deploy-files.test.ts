import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config.js';

/** Docker may not run where the tests do: these check the deployment files say what docs/deploy.md promises. */

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  env_file?: string;
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  ports?: string[];
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  tmpfs?: string[];
  profiles?: string[];
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
  const { redis, web, worker, scheduler, mcp } = compose.services;

  it('runs Redis with AOF and noeviction, the settings BullMQ needs', () => {
    const command = (redis?.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
  });

  it('runs one web, two workers and one scheduler from the same image and .env', () => {
    expect(web?.environment?.ROLE).toBe('web');
    expect(worker?.environment?.ROLE).toBe('worker');
    expect(scheduler?.environment?.ROLE).toBe('scheduler');
    expect(worker?.deploy?.replicas).toBe(2);
    expect(web?.deploy?.replicas ?? 1).toBe(1);
    for (const bot of [web, worker, scheduler]) {
      expect(bot?.image).toBe(web?.image);
      expect(bot?.env_file).toBe('.env');
      expect(bot?.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(bot?.stop_grace_period).toBe('30s');
    }
  });

  it('has the assistant tools as a service of their own, on request (profile mcp), on this machine only', () => {
    expect(mcp?.environment?.ROLE).toBe('mcp');
    expect(mcp?.profiles).toEqual(['mcp']);
    expect(mcp?.image).toBe(web?.image);
    expect(mcp?.env_file).toBe('.env');
    expect(mcp?.read_only).toBe(true);
    expect(mcp?.ports).toEqual(['127.0.0.1:3001:3000']);
  });

  it('publishes the web port on this machine only, and no port for the worker and the scheduler', () => {
    expect(web?.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(worker?.ports).toBeUndefined();
    expect(scheduler?.ports).toBeUndefined();
  });

  it('runs every bot process read-only, with no capabilities and no privilege gain, /tmp in memory', () => {
    for (const bot of [web, worker, scheduler]) {
      expect(bot?.read_only).toBe(true);
      expect(bot?.cap_drop).toEqual(['ALL']);
      expect(bot?.security_opt).toContain('no-new-privileges:true');
      expect(bot?.tmpfs?.some((t) => t.startsWith('/tmp'))).toBe(true);
    }
  });

  // Each container would start a sandbox of its own, with its own sample data: the web role would show a post
  // the worker's sandbox has never heard of.
  it('refuses GATEWAY_BASE_URL=sandbox in every role container, saying how to try the sandbox instead', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret', GATEWAY_BASE_URL: 'sandbox' };
    const roles = Object.values(compose.services).filter((s) => s.environment?.ROLE);
    expect(roles.length).toBeGreaterThanOrEqual(3);
    for (const bot of roles) {
      const start = () => loadConfig({ ...env, ...bot.environment });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(`GATEWAY_BASE_URL=sandbox runs a sandbox gateway inside this one process`);
      expect(start).toThrow('docker compose run --rm -e ROLE=all');
    }
    expect(loadConfig({ ...env, ...web?.environment, ROLE: 'all' }).gateway.sandbox).toBe(true);
  });

  it('names only roles the config accepts', () => {
    const config = read('src/config/env-schema.ts');
    for (const bot of [web, worker, scheduler, mcp]) expect(config).toContain(`'${bot?.environment?.ROLE}'`);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('builds with dev dependencies and runs with production ones only, as a non-root user', () => {
    expect(stages).toHaveLength(2);
    const [build, runtime] = stages;
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toContain('RUN npm run build');
    expect(runtime).toContain('npm ci --omit=dev');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain('CMD ["node", "dist/main.js"]');
    expect(runtime).not.toMatch(/tsx|typescript/);
  });

  it('health-checks /healthz with node (slim images have no curl)', () => {
    expect(dockerfile).toMatch(/HEALTHCHECK [^\n]*\\\n\s+CMD \["node", "-e", ".*\/healthz/);
  });

  it('keeps .env and local output out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.env', 'node_modules', 'dist']) expect(ignored).toContain(entry);
  });
});
