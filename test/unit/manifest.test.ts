import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SLASH_COMMANDS } from '../../src/commands/index.js';
import { HOME_ACTION_IDS, HOME_VIEW_IDS } from '../../src/home/index.js';
import { INTERACTIVE_IDS } from '../../src/interactions/index.js';
import { MEMBERSHIP_EVENTS } from '../../src/slack/slack-routes.js';

const manifestText = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
const manifest = parse(manifestText);
const listed = (label: string): string[] =>
  (new RegExp(`^# ${label}: (.*)$`, 'm').exec(manifestText)?.[1] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();

describe('manifest.yml', () => {
  it('validates against the Slack app manifest schema', () => {
    // A copy of SchemaStore's Slack app manifest schema (https://json.schemastore.org/slack-app-manifest.json,
    // its $id), kept in the project so that a clone tests itself with nothing beside it.
    const schemaUrl = new URL('../fixtures/slack-app-manifest.schema.json', import.meta.url);
    const schema = JSON.parse(readFileSync(schemaUrl, 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('declares exactly the slash commands the code registers', () => {
    const declared = manifest.features.slash_commands.map((c: { command: string }) => c.command).sort();
    expect(declared).toEqual([...SLASH_COMMANDS].sort());
  });

  it('lists exactly the interactive ids the code listens to', () => {
    expect(listed('interactive-action-ids')).toEqual([...INTERACTIVE_IDS.actions].sort());
    expect(listed('interactive-view-callback-ids')).toEqual([...INTERACTIVE_IDS.views].sort());
    expect(listed('home-action-ids')).toEqual([...HOME_ACTION_IDS].sort());
    expect(listed('home-view-callback-ids')).toEqual([...HOME_VIEW_IDS].sort());
  });

  it('enables the Home tab and subscribes to its open event', () => {
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toContain('app_home_opened');
  });

  it('subscribes to the membership events that keep a token’s reach current', () => {
    for (const event of MEMBERSHIP_EVENTS)
      expect(manifest.settings.event_subscriptions.bot_events).toContain(event);
  });

  it('turns on interactivity and asks only for the scopes the bot uses', () => {
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual([
      'channels:read',
      'chat:write',
      'commands',
      'files:write',
      'groups:read',
      'usergroups:read',
      'users:read',
    ]);
  });
});
