import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/redis/connection.js';
import { type DemoRun, demoRunner, msBetween } from '../helpers/demo-run.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/** `npm run demo -- --script FILE` as a person runs it: a child process, its stdout the transcript. */

// Budgets for a loaded machine, where starting the demo alone may take most of a minute; a hang still fails.
const demo = demoRunner('demo-script', 150_000);

const prefixOf = (run: DemoRun) => /keys under (demo-[0-9a-f]+)/.exec(run.stdout)?.[1];

let session: DemoRun;
let mistaken: DemoRun;

beforeAll(async () => {
  [session, mistaken] = await Promise.all([
    demo.run(
      [
        '# a comment, then a blank line',
        '',
        '/gateway help',
        '/gateway use acme-plumbing',
        '/gateway keywords',
        'press Next',
        '/gateway keywords order=change limit=5',
        // As the shipped tour does: a deploy bob asks for and alice approves, where everyone sees the card.
        'as bob',
        '/gateway deploy',
        'fill post_id=1',
        'submit',
        'as alice',
        'press Approve',
        '/gateway history',
        '/gateway audit https://acme-plumbing.example/',
        // As the shipped tour does: ideas as a table, then (4 actions a minute) a job that waits, cancelled.
        '/gateway ideas seed="water heater" location="Austin, TX"',
        '/gateway index https://acme-plumbing.example/blog/water-heaters',
        '/gateway map "water heaters" depth=2',
        'press Cancel',
      ].join('\n'),
      'session',
    ),
    demo.run(['/gateway use acme-plumbing', 'press 7', 'frobnicate', 'submit'].join('\n'), 'mistaken'),
  ]);
}, 180_000);

afterAll(demo.cleanup);

describe('npm run demo -- --script', () => {
  it('runs a session to the end and exits 0 with the transcript', () => {
    expect(session.code, session.stderr).toBe(0);
    const out = session.stdout;
    expect(out).toMatch(
      /^demo: sandbox gateway http:\/\/127\.0\.0\.1:\d+.* fake Slack .* Redis redis:\/\/.* bot on port \d+/m,
    );
    expect(out).toContain('alice in #seo> /gateway help');
    expect(out).not.toContain('a comment');
    expect(out).toContain('gateway (only visible to you): == Gateway bot commands ==');
    expect(out).toContain('`/gateway keywords');
    expect(out).toContain(
      'gateway: This channel is now bound to Acme Plumbing & Heating (`acme-plumbing`), by @alice.',
    );
  });

  it('shows the keywords page 1–20, and 21–40 after pressing Next', () => {
    const out = session.stdout;
    const first = out.indexOf('`keywords` for Acme Plumbing & Heating · 1–20 of');
    const pressed = out.indexOf('(pressed [1] Next)');
    const second = out.indexOf('gateway (updated): `keywords` for Acme Plumbing & Heating · 21–40 of');
    expect(first).toBeGreaterThan(0);
    expect(pressed).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(pressed);
    expect(out.slice(second)).toContain('[1] Previous  [2] Next');
  });

  it('shows keywords sorted by their change, biggest climbs first, with labelled dates', () => {
    // The shipped tour shows it too.
    expect(readFileSync('demo.txt', 'utf8')).toContain('/gateway keywords order=change');
    const out = session.stdout.slice(session.stdout.indexOf('> /gateway keywords order=change'));
    expect(out).toContain('sorted by change, biggest climbs first');
    const rows = out
      .split('\n')
      .filter((line) => /^\s+\d+\. /.test(line))
      .slice(0, 5);
    expect(rows).toHaveLength(5);
    const climbs = rows.map((line) => Number(/▲(\d+)/.exec(line)?.[1]));
    expect(climbs).toEqual([...climbs].sort((a, b) => b - a));
    expect(rows[0]).toMatch(/#\d+ · ▲\d+ · vol [\d,]+ · KD \d+ · .* · tracked \d{4}-\d{2}-\d{2}/);
  });

  it('shows a deploy waiting for approval, approved by an admin, run once and reported in the card’s thread', () => {
    const out = session.stdout.slice(session.stdout.indexOf('bob in #seo> /gateway deploy'));
    // No post named: the form offers the newest posts, the first chosen by its number.
    expect(out).toMatch(/^bob in #seo> \/gateway deploy\n┌ modal “Blog deploy” \[Request approval\]/);
    expect(out).toMatch(/│ • Post \(post_id; required; The 25 newest of \d+ posts, newest first\./);
    // One option a line: 25 posts on one line would be about 2,000 characters.
    const chosen = /│ {5}1\) .* \((?:draft|published) · \d{4}-\d{2}-\d{2} · (blog_\d+)\)\n│ {5}2\) /.exec(
      out,
    )?.[1];
    expect(chosen).toBeDefined();
    expect(out).toMatch(/\ngateway: Approval needed: Blog deploy \(`deploy_blog`\)/);
    expect(out).toMatch(/\[1\] Approve {2}\[2\] Reject \(!\) {2}\[3\] Cancel\n/);
    // bob's card stays pressable for alice: channel messages are everyone's.
    expect(out).toContain('alice in #seo> press Approve\n(pressed [1] Approve)');
    const approved = out.slice(out.indexOf('(pressed [1] Approve)'), out.indexOf('> /gateway history'));
    expect(approved).toMatch(
      /\n {4}gateway: ✅ Blog deploy\b.* for Acme Plumbing & Heating, requested by @bob — done/,
    );
    expect(approved).toMatch(/✅ Approved by @alice at .* · done/);
    const history = out.slice(out.indexOf('> /gateway history'));
    // Each line names what ran: the post chosen in the form, by title and id.
    expect(history).toMatch(
      new RegExp(
        `done · Blog deploy for Acme Plumbing & Heating · “[^”]+” \`${chosen}\` · hash \`[0-9a-f]{12}\``,
      ),
    );
  });

  it('waits for the audit job and shows its result in the thread of its status message', () => {
    const out = session.stdout.slice(session.stdout.indexOf('> /gateway audit'));
    expect(out).toMatch(
      /\ngateway: .*SEO audit of https:\/\/acme-plumbing\.example\/ for Acme Plumbing & Heating.* — done/,
    );
    expect(out).toMatch(/\n {4}gateway: 🔍 Score: \d+\/100\n {6}Issues found: \d+/);
  });

  it('shows keyword ideas as a short table of keyword, volume and KD', () => {
    const out = session.stdout.slice(session.stdout.indexOf('> /gateway ideas'));
    expect(out).toMatch(/— done: 5 keyword ideas\n/);
    expect(out).toMatch(
      /\n {4}gateway: 5 ideas, by volume\n {6}```Keyword +Volume +KD\n {6}water heater [a-z ]+ +[\d,]+ +\d+\n/,
    );
  });

  it('shows a job that waits its turn, why and about how long, and cancels it with its button', () => {
    const out = session.stdout.slice(session.stdout.indexOf('> /gateway map'));
    expect(out).toMatch(
      /\ngateway: ⏳ Topical map of “water heaters” for Acme Plumbing & Heating, requested by @alice — queued: 4 actions a minute, about \d+ s\n {2}\[1\] Cancel\n/,
    );
    expect(out).toMatch(
      /\(pressed \[1\] Cancel\)\ngateway \(updated\): 🚫 Topical map of “water heaters” .* — cancelled\n/,
    );
    expect(out).toContain('cancelled by @alice before it started; nothing was sent to the gateway');
    // Only waiting for the rate window, the job does not hold the script: the next line comes after a quiet
    // moment, not after the 20 s a script waits for jobs at most. Timed from that line to the next, since a
    // loaded machine makes the whole session slow.
    expect(msBetween(session, '> /gateway map', '> press Cancel')).toBeLessThan(10_000);
  });

  it('leaves no keys of its own in Redis', async () => {
    const prefix = prefixOf(session);
    expect(prefix).toBeDefined();
    const redis = createRedis(TEST_REDIS_URL);
    try {
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await redis.quit();
    }
  });

  it('reports lines it cannot carry out, goes on, and exits 2', () => {
    expect(mistaken.code, mistaken.stderr).toBe(2);
    const out = mistaken.stdout;
    expect(out).toContain('! no button “7” is shown');
    expect(out).toContain('! “frobnicate” is not a console command');
    expect(out).toContain('! no modal is open: nothing to submit');
    expect(out, mistaken.stderr).toContain('now bound to Acme Plumbing');
  });
});
