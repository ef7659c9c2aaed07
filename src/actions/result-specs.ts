/**
 * How each action's title and result read in Slack, as data: the views fill these templates from the
 * job's fields and the result record. `{name}` is a value from the record, else from the request's fields;
 * `{name|kind}` formats it (see views/template.ts). A template part whose value is missing is left out, so
 * a record without `issues_found` reads "score 72/100", not "score 72/100 · undefined issues".
 *
 * Fields the card does not name still show, readably, when they are not the request's own fields echoed back
 * (the gateway's result shapes are open: docs/gateway-api.md §2.3 shows two).
 */

type ResultKind = 'text' | 'number' | 'id' | 'url' | 'date' | 'list' | 'yesno';

export interface ResultFieldSpec {
  name: string;
  label: string;
  kind?: ResultKind;
  /** After the value: `/100`. */
  suffix?: string;
}

/** An array of records shown as a short table (`ideas`: keyword, volume, KD). */
export interface ResultTableSpec {
  field: string;
  columns: ResultFieldSpec[];
  /** Rows are sorted by this column, largest first. */
  sortBy?: string;
  /** What one row is, for "5 keyword ideas" and "…and 3 more". */
  noun: string;
}

export interface ResultSpec {
  /** Parts of the one-line summary on the status message, joined with " · ". */
  summary: string[];
  /** The first line of the thread card (with its emoji). */
  headline?: string[];
  fields?: ResultFieldSpec[];
  table?: ResultTableSpec;
  /** A long text of the record shown as a quote (an email's body, an FAQ's answer). */
  quote?: string;
  /** A list field shown as bullets (recommendations, clusters). */
  bullets?: { field: string; label: string };
}

export interface PresentationSpec {
  /** The job's title, in parts: "Blog article about “{keyword}”". */
  title: string[];
  result: ResultSpec;
}

const status: ResultFieldSpec = { name: 'status', label: 'Status' };

export const PRESENTATION: Readonly<Record<string, PresentationSpec>> = {
  seo_audit: {
    title: ['SEO audit of {url|url}'],
    result: {
      summary: ['score {score}/100', '{issues_found|number} issues found'],
      headline: [':mag: Score: *{score}*/100', '\nIssues found: *{issues_found|number}*'],
    },
  },
  optimize_page: {
    title: ['Page optimisation of {url|url}', 'targeting “{keyword}”'],
    result: {
      summary: ['{recommendations|count} recommendations', 'priority {priority}'],
      headline: [':wrench: *{title}*'],
      fields: [{ name: 'priority', label: 'Priority' }, status],
      bullets: { field: 'recommendations', label: 'Recommendations' },
    },
  },
  generate_keywords: {
    title: ['Keyword ideas', 'from “{seed}”', 'near {location}'],
    result: {
      summary: ['{ideas|count} keyword ideas'],
      table: {
        field: 'ideas',
        noun: 'idea',
        sortBy: 'search_volume',
        columns: [
          { name: 'keyword', label: 'Keyword' },
          { name: 'search_volume', label: 'Volume', kind: 'number' },
          { name: 'difficulty', label: 'KD', kind: 'number' },
        ],
      },
    },
  },
  generate_topical_map: {
    title: ['Topical map of “{topic}”'],
    result: {
      summary: ['pillar “{pillar}”', '{clusters|count} clusters'],
      headline: [':world_map: Pillar: *{pillar}*'],
      fields: [{ name: 'depth', label: 'Depth', kind: 'number' }],
      bullets: { field: 'clusters', label: 'Clusters' },
    },
  },
  generate_blog: {
    title: ['Blog article about “{keyword}”'],
    result: {
      summary: ['drafted “{post_title}”'],
      headline: [':memo: Drafted: *{post_title}*'],
      fields: [
        status,
        { name: 'word_count', label: 'Words', kind: 'number' },
        { name: 'category_id', label: 'Category', kind: 'id' },
        { name: 'url', label: 'Page', kind: 'url' },
      ],
    },
  },
  generate_blog_image: {
    title: ['Blog image for “{title}”', 'in {style}'],
    result: {
      summary: ['{status}'],
      headline: [':frame_with_picture: {image_url|url}'],
      fields: [status],
    },
  },
  generate_geo_article: {
    title: ['Geo article about “{keyword}”', 'in {city}, {state}'],
    result: {
      summary: ['drafted “{title}”'],
      headline: [':round_pushpin: Drafted: *{title}*'],
      fields: [status, { name: 'category_id', label: 'Category', kind: 'id' }],
    },
  },
  generate_press_release: {
    title: ['Press release “{headline}”'],
    result: {
      summary: ['{status}'],
      headline: [':newspaper: *{headline}*'],
      fields: [status],
      bullets: { field: 'body_points', label: 'Body points' },
    },
  },
  generate_gbp_post: {
    title: ['Business Profile post about “{topic}”'],
    result: {
      summary: ['{status}'],
      headline: [':speech_balloon: {summary}'],
      fields: [status, { name: 'cta', label: 'Call to action' }],
    },
  },
  deploy_blog: {
    title: ['Blog deploy', 'of {post_id|id}'],
    result: {
      summary: ['deployed {post_id|id}'],
      headline: [':rocket: Deployed {post_id|id}', 'at {deployed_at|date}'],
    },
  },
  index_url: {
    title: ['Indexing request for {url|url}'],
    result: { summary: ['{status}'], headline: [':inbox_tray: {url|url}', '— {status}'] },
  },
  fetch_backlinks: {
    title: ['Backlink refresh'],
    result: {
      summary: ['{total_backlinks|number} backlinks', '{referring_domains|number} referring domains'],
      fields: [
        { name: 'total_backlinks', label: 'Backlinks', kind: 'number' },
        { name: 'referring_domains', label: 'Referring domains', kind: 'number' },
        { name: 'new_backlinks', label: 'New', kind: 'number' },
        { name: 'lost_backlinks', label: 'Lost', kind: 'number' },
        { name: 'fetched_at', label: 'Fetched', kind: 'date' },
      ],
    },
  },
  generate_outreach_email: {
    title: ['Outreach email to {prospectUrl|url}'],
    result: {
      summary: ['drafted “{subject}”'],
      headline: [':email: Subject: *{subject}*'],
      quote: 'body',
      fields: [status, { name: 'tone', label: 'Tone' }],
    },
  },
  send_prospect_email: {
    title: ['Prospect email to {to}', '“{subject}”'],
    result: { summary: ['{status}'], headline: [':outbox_tray: Sent to {to}', 'at {sent_at|date}'] },
  },
  run_grid_search: {
    title: ['Local grid search for “{keyword}”', 'around {lat|place}', '(radius {radius})'],
    result: {
      summary: ['average rank {average_rank}', 'across a {grid_size}×{grid_size} grid'],
      headline: [':round_pushpin: “{keyword}” around {lat|place}', '· radius {radius}'],
      fields: [
        { name: 'average_rank', label: 'Average rank', kind: 'number' },
        { name: 'grid_size', label: 'Grid points per side', kind: 'number' },
        { name: 'tracked_at', label: 'Tracked', kind: 'date' },
      ],
    },
  },
  run_llm_visibility: {
    title: ['LLM visibility of {brand_name}'],
    result: {
      summary: ['visibility {visibility_score}/100', '{mentions|number} mentions'],
      headline: [':robot_face: “{prompt}”'],
      fields: [
        { name: 'visibility_score', label: 'Visibility', suffix: '/100' },
        { name: 'mentions', label: 'Mentions', kind: 'number' },
        { name: 'engine', label: 'Engine' },
        { name: 'scored_at', label: 'Scored', kind: 'date' },
      ],
    },
  },
  score_call: {
    title: ['Call scoring', 'of {call_id|id}'],
    result: {
      summary: ['lead grade {lead_grade}', 'score {score}'],
      fields: [
        { name: 'lead_grade', label: 'Lead grade' },
        { name: 'quality_grade', label: 'Quality grade' },
        { name: 'score', label: 'Score', kind: 'number' },
      ],
    },
  },
};
