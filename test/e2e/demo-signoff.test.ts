import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoRunner } from '../helpers/demo-run.js';

/**
 * The client sign-off part of the shipped tour (`demo.txt`, its "# Client sign-off" section), run as a person
 * runs it: bob asks, erin (the client's workspace) signs off, alice approves, and the deploy runs once.
 */

// Budgets for a loaded machine, where starting the demo alone may take most of a minute; a hang still fails.
const demo = demoRunner('demo-signoff', 150_000);
afterAll(demo.cleanup);

function signoffTour(): string {
  const lines = readFileSync(join(process.cwd(), 'demo.txt'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('# Client sign-off'));
  if (start < 0) throw new Error('demo.txt has no "# Client sign-off" section');
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  return ['/gateway use acme-plumbing', ...lines.slice(start, end)].join('\n');
}

describe('the shipped demo tour: client sign-off', () => {
  it('bob asks, erin signs off, alice approves: the deploy runs once', async () => {
    const run = await demo.run(signoffTour());
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/named @erin \(Acme Plumbing & Heating\) a client approver/);
    const card = out.slice(out.indexOf('bob in #seo> /gateway deploy'));
    expect(card).toMatch(/Client sign-off: waiting for @erin \(Acme Plumbing & Heating\)/);
    const erin = card.slice(card.indexOf('erin in #seo> press Approve'));
    expect(erin).toMatch(/Client sign-off: ✅ @erin \(Acme Plumbing & Heating\)/);
    const alice = erin.slice(erin.indexOf('alice in #seo> press Approve'));
    expect(alice).toMatch(/Approved by @alice at .* · done/);
    expect(alice).toMatch(/Agency approval: ✅ @alice · Client sign-off: ✅ @erin/);
    expect(out.match(/— done/g)).toHaveLength(1);
  }, 180_000);
});
