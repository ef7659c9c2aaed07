// The registry this project is developed against serves only linux-x64 builds of packages that ship one
// native binary per platform (Biome, oxc-parser, msgpackr-extract), so `npm install` leaves the other
// platforms' optional entries out of package-lock.json and `npm ci` then refuses the lockfile. This adds a
// stub entry (version, os, cpu, optional) for every declared optional dependency that has none; npm skips
// them on other platforms exactly as it would skip the real ones. Run after `npm install <pkg>`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const OS = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 'riscv64', 's390x', 'loong64', 'wasm32', 'mips64el'];
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${name}`;
    if (lock.packages[at] || lock.packages[`${key}/${at}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = OS.find((o) => parts.includes(o));
    const cpu = CPU.find((c) => parts.includes(c)) ?? (parts.includes('eabi') || parts.includes('gnueabihf') ? 'arm' : undefined);
    const stub = { version: range.replace(/^[\^~=]/, ''), optional: true };
    if (entry.dev) stub.dev = true;
    if (cpu) stub.cpu = [cpu];
    if (os) stub.os = [os];
    lock.packages[at] = stub;
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`added ${added} optional stub entries\n`);
