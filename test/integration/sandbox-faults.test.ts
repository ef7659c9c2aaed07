import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

interface ActionBody {
  status?: 'success' | 'error';
  status_code?: number;
  data?: Record<string, unknown>;
  error?: string;
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ largeKeywordRows: 1_000 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const blog = (keyword = 'fault test') => ({ action: 'generate_blog', client_id: 'harbor-law', keyword });

async function post(body: unknown, options: { headersTimeout?: number } = {}) {
  const res = await request(sandbox.url, {
    method: 'POST',
    headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...options,
  });
  return { status: res.statusCode, body: (await res.body.json()) as ActionBody };
}

async function getReviews() {
  const res = await request(`${sandbox.url}?resource=reviews&client_id=harbor-law&limit=1`, {
    headers: { authorization: 'Bearer sandbox-key' },
  });
  await res.body.dump();
  return res.statusCode;
}

const blogsNamed = (keyword: string) =>
  sandbox.records('harbor-law', 'blogs').filter((row) => row.keyword === keyword);

describe('faults before the work', () => {
  it('"500" answers 500 with an error body and creates nothing', async () => {
    sandbox.failNext('500', { action: 'generate_blog' });
    const { status, body } = await post(blog());
    expect(status).toBe(500);
    expect(body.error).toMatch(/Retry with backoff/);
    expect(sandbox.counts()).toEqual({});
  });

  it('"drop_before_action" destroys the socket and creates nothing', async () => {
    sandbox.failNext('drop_before_action');
    await expect(post(blog())).rejects.toThrow();
    expect(sandbox.counts()).toEqual({});
  });

  it('"status_error" answers HTTP 200 with status error and status_code 502, creating nothing', async () => {
    sandbox.failNext('status_error', { method: 'POST', action: 'generate_blog' });
    const { status, body } = await post(blog('status error'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'error', status_code: 502, data: {} });
    expect(body.error).toMatch(/^Upstream generator failed/);
    expect(blogsNamed('status error')).toHaveLength(0);
    expect(sandbox.counts()).toEqual({});
  });
});

describe('faults after the work (outcome unknown to the client)', () => {
  it('"drop_after_action" creates the record but the client sees a socket error', async () => {
    sandbox.failNext('drop_after_action', { action: 'generate_blog' });
    await expect(post(blog('dropped'))).rejects.toThrow(/other side closed|socket/i);
    expect(blogsNamed('dropped')).toHaveLength(1);
    expect(sandbox.counts()).toEqual({ 'harbor-law': { generate_blog: 1 } });
    expect(sandbox.requests().at(-1)).toMatchObject({
      action: 'generate_blog',
      status: 0,
      fault: 'drop_after_action',
    });
  });

  it('"500_after_action" creates the record and answers 500', async () => {
    sandbox.failNext('500_after_action');
    expect((await post(blog('half done'))).status).toBe(500);
    expect(blogsNamed('half done')).toHaveLength(1);
  });

  it('"timeout" creates the record and never answers', async () => {
    sandbox.failNext('timeout');
    const started = performance.now();
    await expect(post(blog('slow'), { headersTimeout: 200 })).rejects.toThrow(/timeout/i);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(blogsNamed('slow')).toHaveLength(1);
  });

  it('applies to GET too: a 500 and a dropped read', async () => {
    sandbox.failNext('500', { method: 'GET', resource: 'reviews' });
    sandbox.failNext('drop_after_action', { method: 'GET' });
    expect(await getReviews()).toBe(500);
    await expect(getReviews()).rejects.toThrow();
    expect(await getReviews()).toBe(200);
  });
});

describe('failNext queue', () => {
  it('serves queued faults in order, counts them down, and skips requests that do not match', async () => {
    sandbox.failNext('500', { method: 'POST', action: 'generate_blog', count: 2 });
    sandbox.failNext('status_error', { method: 'POST' });
    expect(await getReviews()).toBe(200);
    const faq = await post({ action: 'generate_faq', client_id: 'harbor-law', topic: 'x' });
    expect([faq.status, faq.body.status]).toEqual([200, 'error']);
    expect((await post(blog())).status).toBe(500);
    expect((await post(blog())).status).toBe(500);
    expect((await post(blog())).body.status).toBe('success');
    expect(sandbox.requests().map((r) => r.fault ?? null)).toEqual([
      null,
      'status_error',
      '500',
      '500',
      null,
    ]);
    expect(sandbox.counts()).toEqual({ 'harbor-law': { generate_blog: 1 } });
  });

  it('rejects an unknown fault', () => {
    expect(() => sandbox.failNext('boom' as never)).toThrow(/Unknown fault/);
  });
});

describe('knobs', () => {
  it('errorRate 1 fails every request with 500; back to 0 all succeed', async () => {
    sandbox.setKnobs({ errorRate: 1 });
    expect(await getReviews()).toBe(500);
    expect((await post(blog())).status).toBe(500);
    sandbox.setKnobs({ errorRate: 0 });
    expect(await getReviews()).toBe(200);
  });

  it('rolls rates on a seeded stream: the same faults repeat after reset', async () => {
    const run = async () => {
      sandbox.setKnobs({ statusErrorRate: 0.5 });
      const outcomes: string[] = [];
      for (let i = 0; i < 16; i++) outcomes.push((await post(blog(`r${i}`))).body.status ?? '?');
      return outcomes;
    };
    const first = await run();
    sandbox.reset();
    const second = await run();
    expect(second).toEqual(first);
    expect(first).toContain('error');
    expect(first).toContain('success');
  });

  it('delays every answer by latencyMs', async () => {
    sandbox.setKnobs({ latencyMs: 150 });
    const started = performance.now();
    expect(await getReviews()).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('refuses rates outside 0..1', () => {
    expect(() => sandbox.setKnobs({ errorRate: 2 })).toThrow(/fraction/);
  });
});

describe('introspection endpoints', () => {
  async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
    const res = await request(`${sandbox.origin}/__sandbox/${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }

  it('sets knobs, queues faults, reports counts and requests, and resets over HTTP', async () => {
    expect((await call('POST', 'knobs', { latencyMs: 5 })).body).toMatchObject({ knobs: { latencyMs: 5 } });
    expect((await call('POST', 'fail-next', { fault: 'status_error', action: 'generate_blog' })).status).toBe(
      200,
    );
    expect((await post(blog('via http'))).body.status).toBe('error');
    await post(blog('via http'));
    const counts = await call('GET', 'counts');
    expect(counts.body.counts).toEqual({ 'harbor-law': { generate_blog: 1 } });
    expect(counts.body.requests).toEqual([
      expect.objectContaining({ method: 'POST', key: 'sandbox-key', action: 'generate_blog', status: 200 }),
      expect.objectContaining({ method: 'POST', action: 'generate_blog', fields: { keyword: 'via http' } }),
    ]);
    expect((await call('POST', 'reset')).status).toBe(200);
    expect((await call('GET', 'counts')).body).toMatchObject({ counts: {}, requests: [] });
  });

  it('answers 400 for a bad knob or fault, 404 for an unknown endpoint', async () => {
    expect((await call('POST', 'knobs', { errorRate: 'lots' })).status).toBe(400);
    expect((await call('POST', 'knobs', { speed: 1 })).body.error).toMatch(/Unknown knob/);
    expect((await call('POST', 'fail-next', { fault: 'meteor' })).status).toBe(400);
    expect((await call('GET', 'nothing')).status).toBe(404);
  });
});

describe('request log', () => {
  it('masks keys it does not know', async () => {
    const res = await request(`${sandbox.url}?resource=clients`, {
      headers: { authorization: 'Bearer real-secret-key' },
    });
    expect(res.statusCode).toBe(401);
    await res.body.dump();
    expect(sandbox.requests()).toEqual([
      expect.objectContaining({ key: 'unknown', status: 401, resource: 'clients' }),
    ]);
  });
});

describe('close', () => {
  it('ends a held (timeout) socket at once', async () => {
    const own = await startSandbox({ largeKeywordRows: 1_000 });
    own.failNext('timeout');
    const pending = request(own.url, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-key' },
      body: JSON.stringify(blog()),
    });
    while (own.requests().length === 0) await new Promise((r) => setTimeout(r, 10));
    const started = performance.now();
    await own.close();
    // Milliseconds when the socket is ended; left open, close() waits for the client's 300 s headers timeout.
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect(pending).rejects.toThrow();
  });
});
