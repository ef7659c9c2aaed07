import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * Images the bot sends (a chart uploaded to the stand-in, a chart an assistant tool returns), written to files so
 * a person at the demo console can open them: a terminal shows no picture, so the console prints the path.
 */
export type SaveImage = (name: string, bytes: Buffer) => string;

/** Saves into `dir` (made when first needed); the name is made safe for a file system and kept unique. */
export function imageSaver(dir: string): SaveImage {
  let count = 0;
  return (name, bytes) => {
    mkdirSync(dir, { recursive: true });
    count += 1;
    const safe =
      basename(name)
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .slice(0, 80) || 'image.png';
    const path = join(dir, `${String(count).padStart(3, '0')}-${safe}`);
    writeFileSync(path, bytes);
    return path;
  };
}
