// `node scripts/chart-font.mjs`: writes src/charts/fonts/DejaVuSans-core.ttf, the glyphs of DejaVu Sans that
// charts draw nearly always (Latin, Latin-1, Latin Extended-A, punctuation, a few signs), cut from the font of
// the dejavu-fonts-ttf package with its outlines, metrics and kerning unchanged.
//
// Why: resvg 2.6 reads a font file given by path again for every glyph it draws, so a chart's ~500 glyphs read
// the 740 KB font 500 times (a quarter of a chart's time). The renderer loads this 58 KB file first and the full
// font after it: a character outside it falls back to the full font, drawn the same. Run again after updating
// dejavu-fonts-ttf; commit the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import subsetFont from 'subset-font';

const full = readFileSync(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
const ranges = [
  [0x20, 0x7e], // Basic Latin
  [0xa0, 0x17f], // Latin-1 Supplement, Latin Extended-A
  [0x2010, 0x2027], // dashes, quotes, bullet, ellipsis
  [0x2030, 0x203a], // per mille, primes, angle quotes
  [0x20ac, 0x20ac], // euro
  [0x2122, 0x2122], // trade mark
  [0x2190, 0x2193], // arrows
  [0x2212, 0x2212], // minus
];
const text = ranges
  .flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i)))
  .join('');
const core = await subsetFont(full, text, { targetFormat: 'truetype' });
const out = new URL('../src/charts/fonts/DejaVuSans-core.ttf', import.meta.url);
writeFileSync(out, core);
process.stdout.write(`${out.pathname}: ${core.length} bytes (from ${full.length})\n`);
