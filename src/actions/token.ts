/**
 * One argument of a command line, as the `/gateway` tokenizer (commands/tokenizer.ts) splits it: a word, or
 * a `name=value` pair. Actions read their fields from these (parse-args.ts), so the type lives with them.
 */
export type Token = { kind: 'word'; value: string } | { kind: 'pair'; name: string; value: string };
