import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoRunner } from '../helpers/demo-run.js';

/**
 * The digest part of the shipped tour (`demo.txt`, from its "# Digests" line), run as a person runs it:
 * `npm run demo -- --script FILE` in a child process. It must show a baseline, then a digest with changes.
 */

// Budgets for a loaded machine, where starting the demo alone may take most of a minute; a hang still fails.
const demo = demoRunner('demo-digest', 150_000);
afterAll(demo.cleanup);

function digestTour(): string {
  const lines = readFileSync(join(process.cwd(), 'demo.txt'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('# Digests'));
  if (start < 0) throw new Error('demo.txt has no "# Digests" section');
  return ['/gateway use acme-plumbing', ...lines.slice(start)].join('\n');
}

describe('the shipped demo tour: digests', () => {
  it('shows a baseline, then after `advance` digests with changes, then the subscriptions', async () => {
    const run = await demo.run(digestTour());
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    const advance = out.indexOf('> advance');
    expect(advance).toBeGreaterThan(0);
    const before = out.slice(0, advance);
    const after = out.slice(advance);
    expect(before).toMatch(
      /Rankings digest for Acme Plumbing & Heating: tracking [\d,]+ keywords from now on/,
    );
    expect(before).toMatch(/Reviews digest for Acme Plumbing & Heating: tracking [\d,]+ reviews from now on/);
    expect(after).toMatch(/\(sandbox: \d{4}-\d{2}-\d{2} at acme-plumbing: \d+ new reviews/);
    // The sample data ends the day before the sandbox started: the day `advance` makes is today, and the new
    // reviews are dated within the week before it, not in a year long past.
    const today = new Date();
    expect(after).toContain(`(sandbox: ${today.toISOString().slice(0, 10)} at acme-plumbing`);
    const reviewDays = [...after.matchAll(/[★☆]+ [^·\n]+ · (\w{3} \d{1,2} \w{3}), /g)].map((m) => m[1]);
    expect(reviewDays.length).toBeGreaterThan(0);
    // The week before today: one sample review arrives late, dated days before the day that passed.
    const recent = [0, 1, 2, 3, 4, 5, 6, 7].map((back) =>
      new Date(today.getTime() - back * 86_400_000).toLocaleDateString('en-GB', {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        timeZone: 'UTC',
      }),
    );
    for (const day of reviewDays) expect(recent.map((r) => r.replace(',', ''))).toContain(day);
    expect(after).toMatch(/\d+ keywords? fell out of the top 10/);
    expect(after).toMatch(/→ 1 \(▲\d+\)/);
    expect(after).toContain('🏆 new best');
    expect(after).toMatch(/new 1- or 2-star reviews? to answer/);
    expect(after).toContain('Digests in this channel');
    expect(after).toMatch(/Rankings weekly on Monday at 09:00 \(UTC\) · filters `min_change=3` · next /);
  }, 180_000);
});
