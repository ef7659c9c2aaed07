import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCatalogue } from '../../src/actions/catalogue.js';
import { manifestFunctions } from '../../src/workflows/manifest-functions.js';

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const catalogue = buildCatalogue(undefined, { guardedActions: [] });
const generated = manifestFunctions(catalogue);

describe('manifest.yml functions (Workflow Builder steps)', () => {
  it('are exactly what the action catalogue generates (run `npm run manifest` after changing an action)', () => {
    expect(manifest.functions).toEqual(generated);
  });

  it('offer every known action as a step, each taking the channel and the acting person', () => {
    const known = catalogue.entries().filter((e) => !e.discovered);
    expect(Object.keys(manifest.functions).sort()).toEqual(known.map((e) => e.action).sort());
    for (const step of Object.values(generated)) {
      expect(step.input_parameters.properties.channel_id?.type).toBe('slack#/types/channel_id');
      // The person is one Slack attests (the trigger's person), never a user id the workflow's author types.
      expect(step.input_parameters.properties.user?.type).toBe('slack#/types/user_context');
      expect(step.input_parameters.properties.user_id).toBeUndefined();
      expect(step.input_parameters.required).toEqual(expect.arrayContaining(['channel_id', 'user']));
      expect(Object.keys(step.output_parameters.properties)).toEqual(
        expect.arrayContaining(['record_id', 'status', 'summary']),
      );
    }
    expect(generated.generate_blog?.output_parameters.properties.post_id?.type).toBe('string');
    expect(generated.deploy_blog?.input_parameters.properties.post_id?.is_required).toBe(true);
  });

  it('types fields with Slack’s types: numbers, whole numbers, text', () => {
    const types = (action: string) =>
      Object.fromEntries(
        Object.entries(generated[action]?.input_parameters.properties ?? {}).map(([k, v]) => [k, v.type]),
      );
    expect(types('run_grid_search')).toMatchObject({ keyword: 'string', lat: 'number', lng: 'number' });
    expect(types('generate_topical_map')).toMatchObject({ topic: 'string', depth: 'integer' });
    expect(types('seo_audit')).toMatchObject({ url: 'string' });
  });

  it('says a guarded step waits for an approver', () => {
    expect(generated.deploy_blog?.description).toMatch(/approver/);
    expect(generated.send_prospect_email?.description).toMatch(/approver/);
    expect(generated.seo_audit?.description).not.toMatch(/approver/);
  });

  it('is an org-ready app whose steps the bot runs, subscribed to function_executed', () => {
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });
});
