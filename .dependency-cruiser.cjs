/**
 * The import rules of the architecture (README, "Structure"), checked in `npm test` (`npm run check:arch`).
 * Folders are the units of the picture; the rules say which way knowledge may flow between them. Folder cycles
 * are checked on runtime imports in .dependency-cruiser-folders.cjs: a feature renders with views/, and a view
 * names the record it renders by type only (views-name-types-only).
 * @type {import('dependency-cruiser').IConfiguration}
 */

/**
 * The surfaces people reach the bot through: each reads its payload, calls a core use case and answers. A new
 * surface gets the same rules by adding its folder's name here.
 */
const SURFACES = ['commands', 'interactions', 'mcp', 'oauth', 'home', 'workflows'];
const SURFACE = `^src/(${SURFACES.join('|')})/`;

/**
 * The features: each owns its use cases and records, and shows the rest of the bot one face, its index.ts. What
 * is not exported there is the feature's own business.
 */
const FEATURES = [
  'access',
  'actions',
  'approvals',
  'bindings',
  'charts',
  'digests',
  'gateway',
  'jobs',
  'overview',
  'reads',
  'requests',
  'store',
  'tokens',
];
const FEATURE = `^src/(${FEATURES.join('|')})/`;
const FACE = `^src/(${FEATURES.join('|')})/index\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: 'surfaces-are-siblings',
      severity: 'error',
      comment:
        'A surface (' + SURFACES.join('/, ') + '/) never imports another: what two surfaces need ' +
        'is a core use case (reads/, requests/, approvals/, digests/, access/) or slack/.',
      from: { path: SURFACE },
      to: { path: SURFACE, pathNot: '^src/$1/' },
    },
    {
      name: 'surfaces-see-faces',
      severity: 'error',
      comment:
        'A surface reads its payload, calls a use case and renders the outcome: it reaches a feature through the ' +
        'feature\'s index.ts only, never a file behind it.',
      from: { path: SURFACE },
      to: { path: FEATURE, pathNot: FACE },
    },
    {
      name: 'surfaces-use-little-else',
      severity: 'error',
      comment:
        'At run time a surface uses features (their index.ts), views/ and slack/, and the HTTP plumbing of http/ ' +
        'and the assistant call scope; the wiring (services.ts, config, logger, redis/) it names by type only.',
      from: { path: SURFACE },
      to: {
        path: '^src/',
        pathNot: ['^src/$1/', FACE, '^src/(views|slack|http)/', '^src/assistant-calls\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'features-see-faces',
      severity: 'error',
      comment: 'A feature reaches another through its index.ts only.',
      from: { path: FEATURE },
      to: { path: FEATURE, pathNot: ['^src/$1/', FACE] },
    },
    {
      name: 'core-knows-no-surface',
      severity: 'error',
      comment:
        'Core folders never import a surface: only the app (app.ts) registers them, the composition root ' +
        '(runtime.ts) subscribes a step\'s end to every role\'s outcomes, and the local stand-in (local/) ' +
        'borrows the command tokenizer for its console.',
      from: { path: '^src/', pathNot: [SURFACE, '^src/app\\.ts$', '^src/runtime(-core|-roles)?\\.ts$', '^src/local/'] },
      to: { path: SURFACE },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment:
        'No import cycles between files at run time. A type named through a feature\'s index.ts may come back the ' +
        'way it went (a request names the access error type, access names the request\'s): types are erased.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'views-name-types-only',
      severity: 'error',
      comment:
        'views/ imports no runtime code from the rest of src/ but pure data files (the field kinds of the ' +
        'catalogue, the gateway advice wording): what a view shows comes in as data.',
      from: { path: '^src/views/' },
      to: {
        path: '^src/',
        pathNot: ['^src/views/', '^src/actions/fields\\.ts$', '^src/gateway/advice\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'views-are-pure',
      severity: 'error',
      comment: 'views/ builds Block Kit from data and does no I/O: no runtime code of the gateway, jobs, stores or requests (types are fine).',
      from: { path: '^src/views/' },
      to: {
        path: '^src/(gateway|jobs|store|requests)/',
        // The gateway's advice wording is data with no imports (checked below), shared with the gateway's errors.
        pathNot: '^src/gateway/advice\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'charts-are-pure',
      severity: 'error',
      comment:
        'charts/ builds chart specifications from data, as views/ builds Block Kit: no runtime code from the rest ' +
        'of src/ but the escaping of views/ (types are fine); what a chart shows comes in as data.',
      from: { path: '^src/charts/' },
      to: {
        path: '^src/',
        pathNot: ['^src/charts/', '^src/views/escape\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'charts-render-in-one-place',
      severity: 'error',
      comment:
        'Only charts/render.ts turns a specification into an image (Vega, resvg, the font file): the other ' +
        'files of charts/ use no Node module and no rendering package, so they stay pure functions of their data.',
      from: { path: '^src/charts/', pathNot: '^src/charts/render\\.ts$' },
      to: {
        path: ['node_modules/(vega|vega-lite|@resvg)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'charts-do-no-io',
      severity: 'error',
      comment: 'charts/ specifications use no Node module (files, network, processes); the renderer alone may.',
      from: { path: '^src/charts/', pathNot: '^src/charts/render\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'advice-is-data',
      severity: 'error',
      comment: 'gateway/advice.ts is wording only: it imports nothing, so views may share it and stay pure.',
      from: { path: '^src/gateway/advice\\.ts$' },
      to: {},
    },
    {
      name: 'gateway-knows-no-slack',
      severity: 'error',
      comment: 'gateway/ speaks HTTP to the gateway and knows nothing of Slack, the queue or the sandbox.',
      from: { path: '^src/gateway/' },
      to: {
        path: [
          '^src/(commands|interactions|slack|views|jobs|requests|approvals|digests|local|sandbox)/',
          '^src/app\\.ts$',
        ],
      },
    },
    {
      name: 'gateway-no-slack-or-queue-packages',
      severity: 'error',
      comment: 'gateway/ uses no Slack SDK and no queue.',
      from: { path: '^src/gateway/' },
      to: { path: 'node_modules/(@slack|bullmq|ioredis)/' },
    },
    {
      name: 'requests-know-no-slack-payloads',
      severity: 'error',
      comment: 'requests/ takes a requester, a client, an action, fields and a reply target: no Slack listeners or payloads.',
      from: { path: '^src/requests/' },
      to: {
        path: ['^src/(commands|interactions|slack|local)/', 'node_modules/@slack/bolt/'],
        // A reply target is plain data, and the Reporter that delivers to it an interface.
        pathNot: '^src/slack/reply-target\\.ts$',
      },
    },
    {
      name: 'jobs-know-no-slack-side',
      severity: 'error',
      comment:
        'jobs/ reaches Slack only through the outbound side of slack/ (reply targets, the poster): no answer, ' +
        'form or error wording of the surfaces.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/slack/', pathNot: '^src/slack/(reply-target|slack-poster)\\.ts$' },
    },
    {
      name: 'actions-know-no-slack-side',
      severity: 'error',
      comment: 'actions/ (the catalogue and its checks) imports no Slack-side code (and, as a core folder, no surface).',
      from: { path: '^src/actions/' },
      to: { path: '^src/slack/' },
    },
    {
      name: 'sandbox-and-stand-in-only-through-the-root',
      severity: 'error',
      comment: 'Product code reaches sandbox/ and local/ only through the composition root (runtime.ts) and the demo.',
      from: { path: '^src/', pathNot: ['^src/(sandbox|local)/', '^src/runtime(-core|-roles)?\\.ts$'] },
      to: { path: '^src/(sandbox|local)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sandbox-is-the-outside-world',
      severity: 'error',
      comment: 'The sandbox stands for the real gateway: it imports no bot code (the spec it serves is in gateway/).',
      from: { path: '^src/sandbox/', pathNot: '^src/sandbox/cli\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/sandbox/', '^src/gateway/(spec|types)\\.ts$'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A file nothing imports is dead (entry points excepted).',
      from: {
        orphan: true,
        pathNot: ['\\.d\\.ts$', '^src/main\\.ts$', '^src/local/demo\\.ts$', '^src/sandbox/cli\\.ts$'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
