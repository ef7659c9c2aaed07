/**
 * The duplicate guard's question (docs/gateway-api.md §4.4 rule 1), ephemeral: "A blog article for “best
 * plumber austin” already exists: <title> (id …, created …). Generate another?" with Generate another /
 * Cancel. Every gateway string and every typed value is escaped: a row can neither ping a channel nor forge
 * the link.
 */
import type { ActionEntry } from '../actions/catalogue.js';
import type { Row } from '../gateway/types.js';
import { actions, button, type SlackMessage, section } from './blocks.js';
import { escapeMrkdwn, mrkdwnLink, oneLine } from './escape.js';
import { fitMessage, MAX_VALUE, truncate } from './limits.js';

export const DUPLICATE_CONFIRM_ACTION_ID = 'duplicate_confirm';
export const DUPLICATE_CANCEL_ACTION_ID = 'duplicate_cancel';

export interface DuplicatePromptInput {
  entry: Pick<ActionEntry, 'action' | 'label' | 'sameFields'>;
  earlier: Row;
  fields: Record<string, unknown>;
  /** Opaque value both buttons carry (e.g. the id of the parked request); Slack allows 2,000 characters. */
  confirmValue: string;
}

const TITLE_FIELDS = ['post_title', 'title', 'headline', 'subject', 'name', 'topic', 'keyword'] as const;
const LINK_FIELDS = ['url', 'link', 'permalink', 'public_url'] as const;
/** Labels that must keep their capitals inside a sentence. */
const NOUNS: Readonly<Record<string, string>> = { generate_gbp_post: 'Business Profile post' };

export function buildDuplicatePrompt(input: DuplicatePromptInput): SlackMessage {
  const { entry, earlier, fields, confirmValue } = input;
  if (confirmValue.length > MAX_VALUE) {
    throw new RangeError(
      `duplicate_confirm_value_too_long: the button value is ${confirmValue.length} characters (Slack allows ${MAX_VALUE})`,
    );
  }
  const noun = nounOf(entry);
  const article = /^[aeiou]/i.test(noun) ? 'An' : 'A';
  const values = entry.sameFields
    .map((name) => fields[name])
    .filter((v) => v !== undefined && v !== null && String(v).trim() !== '')
    .map((v) => `“${oneLine(escapeMrkdwn(truncate(Array.isArray(v) ? v.join(', ') : String(v), 200)))}”`);
  const forWhat = values.length > 0 ? ` for ${values.join(', ')}` : '';
  const sentence = `${article} ${noun}${forWhat} already exists: ${recordText(earlier)}. Generate another?`;
  return fitMessage({
    text: sentence,
    blocks: [
      section(sentence),
      actions(
        'keep:duplicate_prompt',
        button({
          text: 'Generate another',
          actionId: DUPLICATE_CONFIRM_ACTION_ID,
          value: confirmValue,
          style: 'primary',
        }),
        button({ text: 'Cancel', actionId: DUPLICATE_CANCEL_ACTION_ID, value: confirmValue }),
      ),
    ],
  });
}

/**
 * `*Title* (<https://…>) (id blog_0042, created 2024-05-01)`. The address is shown as itself, never behind the
 * title: both come from the gateway, and a title must not be able to dress up where a link goes.
 */
function recordText(row: Row): string {
  const title = firstText(row, TITLE_FIELDS) ?? 'the earlier record';
  const url = firstText(row, LINK_FIELDS);
  const shownTitle = truncate(title, 200);
  const bold = `*${escapeMrkdwn(shownTitle)}*`;
  const titled = url ? `${bold} (${mrkdwnLink(url)})` : bold;
  const details: string[] = [];
  const id = row.id;
  if (typeof id === 'string' || typeof id === 'number') details.push(`id ${escapeMrkdwn(String(id))}`);
  const created = firstText(row, ['created_at']);
  if (created) details.push(`created ${escapeMrkdwn(shortDate(created))}`);
  return details.length > 0 ? `${titled} (${details.join(', ')})` : titled;
}

function firstText(row: Row, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = row[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** `2024-05-01T14:03:00Z` → `2024-05-01`; anything else is shown as the gateway wrote it. */
function shortDate(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ]|$)/.exec(text);
  return m ? (m[1] as string) : truncate(text, 40);
}

function nounOf(entry: Pick<ActionEntry, 'action' | 'label'>): string {
  const fixed = NOUNS[entry.action];
  if (fixed) return fixed;
  const label = entry.label;
  // "Blog article" → "blog article", but "SEO audit" and "LLM visibility check" keep their capitals.
  return /^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}
