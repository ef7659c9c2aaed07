/**
 * The README's assistant client for Node 20 (docs/examples/mcp-client.mjs, on the SDK a newcomer installs) runs
 * against the bot as given: it lists the tools, and calls one with a token minted in Slack.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bind, CHANNEL, type Harness, mintMcpToken, startHarness } from '../helpers/bot-harness.js';

const run = promisify(execFile);
const EXAMPLE = join(process.cwd(), 'docs', 'examples', 'mcp-client.mjs');

describe('the SDK client example for Node 20', () => {
  let h: Harness;
  let endpoint: string;
  let token: string;

  beforeAll(async () => {
    h = await startHarness('e2e-mcp-example');
    h.slack.simulate.joinChannel(CHANNEL, ADMIN);
    await bind(h, 'acme-plumbing');
    endpoint = `http://localhost:${h.runtime.port}/mcp`;
    token = await mintMcpToken(h, ADMIN);
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it('lists the tools', async () => {
    const { stdout } = await run(process.execPath, [EXAMPLE, endpoint, token], { timeout: 30_000 });
    expect(JSON.parse(stdout).tools).toContain('list_keywords');
  });

  it('calls a tool with arguments as JSON', async () => {
    const args = JSON.stringify({ client_id: 'acme-plumbing', limit: 2 });
    const { stdout } = await run(process.execPath, [EXAMPLE, endpoint, token, 'list_keywords', args], {
      timeout: 30_000,
    });
    const answer = JSON.parse(stdout);
    expect(answer.client_id).toBe('acme-plumbing');
    expect(answer.rows).toHaveLength(2);
  });
});
