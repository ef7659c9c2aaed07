import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackDriver } from '../../src/local/driver.js';
import { type FakeSlack, startFakeSlack } from '../../src/local/fake-slack/index.js';
import { silentLogger } from '../../src/logger.js';
import { SlackRoutes } from '../../src/slack/slack-routes.js';

/**
 * The one routing middleware (src/http/slack-routes.ts) in a real Bolt app over HTTP, signed requests from the
 * local driver: each request reaches the steps of its own route in order, and a request no route takes goes on
 * to Bolt's own listeners.
 */

const SECRET = 'routes-signing-secret';
const CHANNEL = 'CROUTES';
const USER = 'UMEMBER';
let slack: FakeSlack;
let app: App;
let driver: SlackDriver;
const seen: string[] = [];

const form = {
  type: 'modal' as const,
  callback_id: 'routed_form',
  title: { type: 'plain_text' as const, text: 'Routed' },
  submit: { type: 'plain_text' as const, text: 'Go' },
  blocks: [
    {
      type: 'input',
      block_id: 'kw',
      label: { type: 'plain_text' as const, text: 'Keyword' },
      element: { type: 'plain_text_input' as const, action_id: 'keyword' },
    },
  ],
};

function buildApp(): App {
  const bolt = new App({
    token: slack.botToken,
    signingSecret: SECRET,
    clientOptions: { slackApiUrl: slack.apiUrl },
    logger: silentLogger(),
  });
  const routes = new SlackRoutes();
  routes.command(
    '/gateway',
    async ({ command, ack, next }) => {
      seen.push(`first ${command.text}`);
      if (command.text === 'stop') await ack();
      else await next();
    },
    async ({ command, ack, client }) => {
      seen.push(`command ${command.text}`);
      await ack();
      if (command.text === 'form') await client.views.open({ trigger_id: command.trigger_id, view: form });
      else
        await client.chat.postMessage({
          channel: command.channel_id,
          text: 'card',
          blocks: [
            {
              type: 'actions',
              elements: [
                { type: 'button', text: { type: 'plain_text', text: 'One' }, action_id: 'one' },
                { type: 'button', text: { type: 'plain_text', text: 'Two' }, action_id: 'two' },
                { type: 'button', text: { type: 'plain_text', text: 'Other' }, action_id: 'other' },
              ],
            },
          ],
        });
    },
  );
  routes.buttons(['one', 'two'], async ({ ack, action }) => {
    await ack();
    seen.push(`button ${action.action_id}`);
  });
  routes.views(['routed_form'], async ({ ack, view }) => {
    await ack();
    seen.push(`view ${view.state.values.kw?.keyword?.value}`);
  });
  routes.homeOpened(async ({ event }) => {
    seen.push(`home ${event.user}`);
  });
  routes.attach(bolt);
  // Not routed: Bolt's own listener still gets it.
  bolt.action('other', async ({ ack }) => {
    await ack();
    seen.push('bolt other');
  });
  return bolt;
}

beforeAll(async () => {
  slack = await startFakeSlack();
  app = buildApp();
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  const { port } = server.address() as AddressInfo;
  driver = new SlackDriver({
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    signingSecret: SECRET,
    slack,
  });
});
afterAll(async () => {
  await app.stop();
  await slack.close();
});
beforeEach(() => {
  slack.reset();
  seen.length = 0;
});

describe('SlackRoutes in a real Bolt app', () => {
  it('runs a command’s steps in order; a step that does not call next ends the route', async () => {
    expect((await driver.command('card', { user: USER, channel: CHANNEL })).status).toBe(200);
    await slack.waitFor(() => slack.messages(CHANNEL)[0], { what: 'the card' });
    expect(seen).toEqual(['first card', 'command card']);
    seen.length = 0;
    expect((await driver.command('stop', { user: USER, channel: CHANNEL })).status).toBe(200);
    expect(seen).toEqual(['first stop']);
  });

  it('routes each button by its id, and leaves an id it does not know to Bolt’s listeners', async () => {
    await driver.command('card', { user: USER, channel: CHANNEL });
    const card = await slack.waitFor(() => slack.messages(CHANNEL)[0], { what: 'the card' });
    for (const text of ['Two', 'One', 'Other']) {
      expect((await driver.click(card, text, { user: USER })).status).toBe(200);
    }
    expect(seen.slice(2)).toEqual(['button two', 'button one', 'bolt other']);
  });

  it('routes a form submission by its callback id and the Home tab’s open event', async () => {
    await driver.command('form', { user: USER, channel: CHANNEL });
    const view = await slack.waitFor(() => slack.views(USER)[0], { what: 'the form' });
    expect((await driver.submit(view, { 'kw.keyword': 'plumber' }, { user: USER })).status).toBe(200);
    expect((await driver.homeOpened({ user: USER })).status).toBe(200);
    await slack.waitFor(() => seen.includes(`home ${USER}`) || undefined, { what: 'the home route' });
    expect(seen.slice(2)).toEqual(['view plumber', `home ${USER}`]);
  });

  it('refuses two routes for one id when the app is built', () => {
    const routes = new SlackRoutes();
    routes.buttons(['approve'], async () => {});
    expect(() => routes.buttons(['cancel', 'approve'], async () => {})).toThrow(
      'two routes for the button "approve"',
    );
    expect(() => routes.command('/gateway')).toThrow('a command route needs a listener');
  });
});
