/**
 * "Did you mean …": the known name (a command, a resource, a client id) nearest to `input` by edit distance (at most 2, and less than the input's
 * length so a two-letter typo does not match everything), or one that starts with it.
 */
export function closestName(input: string, known: readonly string[]): string | undefined {
  const typed = input.toLowerCase();
  if (typed === '') return undefined;
  let best: { name: string; score: number } | undefined;
  for (const name of known) {
    const lower = name.toLowerCase();
    const distance = levenshtein(typed, lower);
    let score = Number.POSITIVE_INFINITY;
    if (distance <= 2 && distance < typed.length) score = distance;
    else if (typed.length >= 2 && lower.startsWith(typed)) score = 2.5; // after any close typo match
    if (score < (best?.score ?? Number.POSITIVE_INFINITY)) best = { name, score };
  }
  return best?.name;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = cur;
  }
  return prev[b.length] as number;
}
