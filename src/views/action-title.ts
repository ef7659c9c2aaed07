import { escapeMrkdwn, mrkdwnLink, oneLine } from './escape.js';
import { fillTemplate } from './template.js';

/**
 * A job's title as English, from the catalogue's template: "Blog article about “best plumber austin”",
 * "SEO audit of https://…", and for an action only discovery knows, "FAQ about “water heaters”". Mrkdwn,
 * escaped, on one line: a value of several lines (a prompt) cannot add lines to the message it heads. Pure.
 */

export interface TitleEntry {
  label: string;
  title?: readonly string[];
  /** The action's fields, required ones first: an action without a template is named by its first value. */
  fields?: ReadonlyArray<{ name: string }>;
}

const SUBJECT_FIELDS = ['url', 'keyword', 'topic', 'headline', 'title', 'prospectUrl', 'prompt', 'seed'];

/** The main field of an action's fields: the one a person would name it by. */
export function subjectOf(fields: Record<string, unknown>, names = SUBJECT_FIELDS): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

export function actionTitle(entry: TitleEntry, fields: Record<string, unknown>): string {
  return oneLine(titleOf(entry, fields));
}

function titleOf(entry: TitleEntry, fields: Record<string, unknown>): string {
  if (entry.title) {
    const filled = fillTemplate(entry.title, (name) => fields[name]);
    if (filled) return filled;
  }
  const names = [...SUBJECT_FIELDS, ...(entry.fields ?? []).map((f) => f.name)];
  const subject = subjectOf(fields, names);
  if (!subject) return escapeMrkdwn(entry.label);
  if (/^https?:\/\//i.test(subject)) return `${escapeMrkdwn(entry.label)} of ${mrkdwnLink(subject)}`;
  return `${escapeMrkdwn(entry.label)} about “${escapeMrkdwn(subject)}”`;
}
