import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoRun, demoRunner } from '../helpers/demo-run.js';

/**
 * The demo's Workflow Builder section, as demo.txt and docs/workflows.md tell it: an audit step completes with
 * its outputs; a generate step's post id feeds a deploy step, which completes only after alice approves it.
 */

const demo = demoRunner('demo-workflow', 180_000);
let run: DemoRun;

beforeAll(async () => {
  const tour = readFileSync(join(process.cwd(), 'demo.txt'), 'utf8').split('\n');
  const start = tour.findIndex((l) => l.startsWith('# Workflow Builder'));
  if (start < 0) throw new Error('demo.txt has no "# Workflow Builder" section');
  const end = tour.indexOf('', start);
  const section = tour.slice(start, end < 0 ? undefined : end);
  run = await demo.run(['/gateway use acme-plumbing', ...section].join('\n'), 'workflow');
}, 240_000);
afterAll(demo.cleanup);

describe('the demo: the two example workflows of docs/workflows.md', () => {
  it('completes the audit step with its record id, status and summary', () => {
    expect(run.stdout).toMatch(
      /workflow seo_audit completed: record_id="audit_\w+" status="done" summary="SEO audit: score \d+\/100/,
    );
  });

  it('feeds the generated post id to the deploy step, which completes after the approval', () => {
    const postId = /workflow generate_blog completed: .*post_id="(blog_\w+)"/.exec(run.stdout)?.[1];
    expect(postId).toBeDefined();
    expect(run.stdout).toContain(`(workflow step deploy_blog started: post_id=${postId})`);
    const approved = run.stdout.indexOf('alice in #seo> press Approve');
    const completed = run.stdout.indexOf('workflow deploy_blog completed: ');
    expect(approved).toBeGreaterThan(0);
    expect(completed).toBeGreaterThan(approved);
    expect(run.stdout).not.toMatch(/^! /m);
  });
});
