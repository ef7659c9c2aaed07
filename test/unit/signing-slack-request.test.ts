import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../src/local/signing.js';

// The worked example in Slack's "Verifying requests from Slack" page.
const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TS = 1531420618;
const DOC_BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const DOC_SIG = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

const verify = (secret: string, body: string, headers: ReturnType<typeof signSlackRequest>) =>
  verifySlackRequest({
    signingSecret: secret,
    body,
    headers: {
      'x-slack-signature': headers['x-slack-signature'],
      'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']),
    },
  });

describe('signSlackRequest', () => {
  it("reproduces Slack's documented signature byte for byte", () => {
    expect(signSlackRequest(DOC_SECRET, DOC_BODY, DOC_TS)).toEqual({
      'x-slack-request-timestamp': String(DOC_TS),
      'x-slack-signature': DOC_SIG,
    });
  });

  it("signs with the current time by default, which Bolt's own verifier accepts", () => {
    const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
    const headers = signSlackRequest('s3cret', body);
    expect(Math.abs(Number(headers['x-slack-request-timestamp']) - Date.now() / 1000)).toBeLessThan(2);
    expect(() => verify('s3cret', body, headers)).not.toThrow();
  });

  it('is refused by Bolt when the secret, the body or the freshness is wrong', () => {
    const body = 'text=hello';
    expect(() => verify('other-secret', body, signSlackRequest('s3cret', body))).toThrow(
      /signature mismatch/,
    );
    expect(() => verify('s3cret', 'text=hellO', signSlackRequest('s3cret', body))).toThrow(
      /signature mismatch/,
    );
    const stale = signSlackRequest('s3cret', body, Math.floor(Date.now() / 1000) - 6 * 60);
    expect(() => verify('s3cret', body, stale)).toThrow(/stale/);
  });
});
