import { afterAll, describe, expect, it } from 'vitest';
import { demoRunner } from '../helpers/demo-run.js';

/** The demo console's `home`: the Home tab as text, its buttons pressed, shown again once it changes. */

// Budgets for a loaded machine, where starting the demo alone may take most of a minute; a hang still fails.
const demo = demoRunner('demo-home', 150_000);
afterAll(demo.cleanup);

describe('the demo console: home', () => {
  it('shows what waits for alice and what bob asked for, and approves from the tab', async () => {
    const run = await demo.run(
      [
        '/gateway use acme-plumbing',
        'as bob',
        '/gateway deploy',
        'fill post_id=1',
        'submit',
        'home',
        'as alice',
        'home',
        'press Approve',
      ].join('\n'),
    );
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    const bob = out.slice(out.indexOf('bob in #seo> home'), out.indexOf('> as alice'));
    expect(bob).toContain('── Home of bob ──');
    expect(bob).toMatch(
      /== Your requests ==\n {2}Blog deploy for Acme Plumbing & Heating in #seo\n.*Waiting for an approver/,
    );
    expect(bob).toContain('[1] Cancel');
    const alice = out.slice(out.indexOf('alice in #seo> home'), out.indexOf('> press Approve'));
    expect(alice).toMatch(
      /== Waiting for you ==\n {2}Blog deploy \(`deploy_blog`\) for Acme Plumbing & Heating in #seo/,
    );
    expect(alice).toContain('[1] Approve  [2] Reject (!)');
    expect(alice).toContain('== For admins ==');
    const pressed = out.slice(out.indexOf('> press Approve'));
    expect(pressed).toMatch(/✅ Approved by @alice at .* · done/);
    const after = pressed.slice(pressed.lastIndexOf('── Home of alice ──'));
    expect(after).toContain('Approved: it runs once');
    expect(after).toContain('Nothing waits for your approval');
  }, 180_000);
});
