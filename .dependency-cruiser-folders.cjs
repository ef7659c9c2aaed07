/**
 * No import cycles between folders: each folder is a layer that knows only those below it, at run time. Type-only
 * imports are left out (a view names the feature record it renders, and the feature renders with views/); the
 * main config (.dependency-cruiser.cjs) keeps every other rule, types included, and no file cycles at all.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const base = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'No runtime import cycles between folders: each folder is a layer that knows only those below it.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
