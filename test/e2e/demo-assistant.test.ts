import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoRun, demoRunner, msBetween } from '../helpers/demo-run.js';

/**
 * The demo's assistant flow, as README.md and demo.txt tell it: bob mints a token in Slack, his assistant asks
 * for a deploy, carol approves it in the channel, and the assistant's get_job reports it done.
 */

const demo = demoRunner('demo-assistant', 180_000);
let run: DemoRun;

beforeAll(async () => {
  // The tour's own lines, from its "# Assistants" section to the next blank line.
  const tour = readFileSync(join(process.cwd(), 'demo.txt'), 'utf8').split('\n');
  const start = tour.findIndex((l) => l.startsWith('# Assistants'));
  if (start < 0) throw new Error('demo.txt has no "# Assistants" section');
  const end = tour.indexOf('', start);
  const section = tour.slice(start, end < 0 ? undefined : end);
  run = await demo.run(['/gateway use acme-plumbing', ...section, 'mcp token read'].join('\n'), 'assistant');
}, 240_000);
afterAll(demo.cleanup);

/** The transcript from the line `> from` up to the next prompt line. */
function answerTo(from: string): string {
  const start = run.stdout.indexOf(`> ${from}\n`);
  if (start < 0) throw new Error(`no “${from}” in the transcript:\n${run.stdout}`);
  const end = run.stdout.indexOf('\n\n', start);
  return run.stdout.slice(start, end < 0 ? undefined : end);
}

describe('the demo: an assistant asks for a deploy, another person approves', () => {
  it('prints the endpoint the bot listens on, in the banner and in /gateway mcp token', () => {
    const port = /bot on port (\d+)/.exec(run.stdout)?.[1];
    expect(Number(port)).toBeGreaterThan(0);
    const minted = answerTo('/gateway mcp token');
    expect(minted).toContain(`Endpoint: \`http://localhost:${port}/mcp\``);
    expect(minted).toContain(`claude mcp add --transport http gateway http://localhost:${port}/mcp`);
    expect(minted).toContain(
      `MCP Inspector (Node 22 or later): \`npx @modelcontextprotocol/inspector --cli http://localhost:${port}/mcp --transport http --header`,
    );
    expect(minted).not.toContain('localhost:0');
    expect(minted).toContain("(the console's mcp lines now use bob's new token)");
  });

  it('reaches #seo’s client with bob’s token, and asks for the deploy as bob', () => {
    expect(answerTo('mcp list_articles client_id=acme-plumbing limit=1')).toContain(
      '"client_id": "acme-plumbing"',
    );
    const asked = answerTo('mcp deploy_article client_id=acme-plumbing article_id=blog_000240');
    expect(asked).toContain('"status": "pending_approval"');
    expect(asked).toMatch(/Approval needed: .*requested by @bob through an assistant/);
  });

  it('lets carol approve it, and get_job reports it done', () => {
    expect(answerTo('press Approve')).toMatch(/Approved by @carol/);
    const job = answerTo('mcp get_job');
    expect(job).toContain('"action": "deploy_blog"');
    expect(job).toContain('"status": "done"');
  });

  it('names the slash command for `mcp token read`, and does not wait for Slack after a tool call', () => {
    expect(answerTo('mcp token read')).toContain('! mcp token is a slash command: /gateway mcp token read');
    expect(run.stdout).not.toContain('fill takes');
    // A tool call answers nothing in Slack: the next line runs at once, not after the console's 20 s cap.
    expect(msBetween(run, '> mcp tools', '> mcp list_articles')).toBeLessThan(12_000);
    // `mcp token read` is the one line the console could not carry out.
    expect(run.code, run.stderr).toBe(2);
  });
});
