/**
 * Time in tests (test/README.md#time-in-tests): one fake clock, one instant, in every tier; in unit tests also no real
 * sleep and no real time. A test file of any tier (the campaigns' aside: their scaled clocks run in real time) that
 * declares its own clock (a class, an object with `now` and `sleep`, or a `sleep(…) {` method), `T0` or fixed instant
 * fails here, and a unit test file also when it waits on a real timer, reads real time (`Date.now()`,
 * `performance.now()`, `new Date()`: a timing belongs to `npm run bench`) or reaches it through the system clock or the
 * campaigns' clocks. test/clock.ts is the one place for the clock and T0; test/e2e/real-then-virtual-clock.ts, real
 * time while a spawned process runs and the fake clock's virtual time after it, is the one other clock. A line whose
 * subject is a calendar date says so with `time-lint: a date` in a comment of its own; one whose subject is the OS
 * clock itself (a file's mtime, the boot time) with `time-lint: system time (why)`, on the line or just above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const TESTS = join(ROOT, 'test');
/** The one fake clock: it alone may declare a clock and T0. */
const CLOCK = 'test/clock.ts';
/** The clocks that are not a second fake clock (test/README.md#e2e-in-process-or-spawned). */
const OTHER_CLOCKS = new Set(['test/e2e/real-then-virtual-clock.ts']);
/** The campaigns keep real time running faster (their own scaled clocks): not checked. */
const CAMPAIGNS = 'campaign';

interface Rule {
  pattern: RegExp;
  says: string;
  /** A comment on the line that lets it through, for a line whose subject is that very thing. */
  unless?: RegExp;
}

/** The escape for a line whose subject is the OS clock itself (a file's mtime, the boot time). */
const SYSTEM_TIME = /\/\/.*\btime-lint: system time\b/;

/** Every tier: one fake clock and one T0. */
const CLOCK_RULES: Rule[] = [
  { pattern: /\bclass\s+\w+[^{]*\bimplements\s+Clock\b/, says: 'a clock class of its own: use the FakeClock' },
  {
    pattern: /\bclass\s+\w+\s+extends\s+\w*Clock\b/,
    says: 'a clock subclass: use the FakeClock (ctrlCWhen for an interruption)',
  },
  {
    pattern: /\bnow\s*:.*\bsleep\s*:\s*(async\s*)?\(|\bsleep\s*:\s*(async\s*)?\(.*\bnow\s*:/,
    says: 'a clock of its own (now and sleep): use the FakeClock (test/clock.ts)',
  },
  {
    // The method form, `sleep(ms, signal) {` or `async sleep(ms) {`: a clock object or class of its own.
    pattern: /^\s*(async\s+)?sleep\s*\([^)]*\)\s*(:[^{]+)?\{/,
    says: 'a clock of its own (a sleep method): use the FakeClock (test/clock.ts)',
  },
  { pattern: /\b(const|let|var)\s+T0\b/, says: 'a T0 of its own: import T0 from test/clock.ts' },
];

/** Unit tests also never reach real time. */
const UNIT_RULES: Rule[] = [
  { pattern: /\bset(Timeout|Interval)\s*\(/, says: 'a real timer: move time with the FakeClock (test/clock.ts)' },
  { pattern: /['"](node:)?timers\/promises['"]/, says: 'a real sleep: move time with the FakeClock' },
  { pattern: /\bAtomics\.wait\s*\(/, says: 'a real sleep: move time with the FakeClock' },
  { pattern: /\bsystemClock\b/, says: 'the real clock: use the FakeClock (test/clock.ts)' },
  ...[/\bDate\.now\s*\(/, /\bperformance\.now\s*\(/, /\bnew Date\s*\(\s*\)/].map((pattern) => ({
    pattern,
    says: 'real time: T0 + offset and `now: () => clock.now()` (a FakeClock), never a timing; the OS clock as the subject: `// time-lint: system time (why)`',
    unless: SYSTEM_TIME,
  })),
  {
    pattern: /['"`](\.\.?\/)+campaign\//,
    says: "the campaigns' world or clocks run in real time: use test/unit/commands/sandbox-world.ts",
  },
];

/** Fixed instants: T0 is the one (a date written as text for the code under test is data, not an instant). */
const INSTANTS: RegExp[] = [/\bDate\.UTC\s*\(/, /\bDate\.parse\s*\(\s*['"`]/, /\bnew Date\s*\(\s*(['"`]?\d)/];
const INSTANT_SAYS = 'a fixed instant of its own: count from T0 (test/clock.ts), T0 + offset';
/** The escape for a test whose subject is a calendar date. */
const A_DATE = /\/\/.*\btime-lint: a date\b/;

/** Comments out of the way (a comment may name a real timer); strings stay, which may only err on the strict side. */
function code(text: string): string {
  // A block comment keeps its line breaks, so an offence is named by its own line.
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The rule's escape is on the line, or is a comment line of its own just above it. */
function escaped(rule: Rule, line: string, above: string): boolean {
  if (rule.unless === undefined) return false;
  return rule.unless.test(line) || (/^\s*\/\//.test(above) && rule.unless.test(above));
}

/** Each offence as `path:line: what to do instead`. */
function offences(path: string, text: string): string[] {
  if (path === CLOCK || OTHER_CLOCKS.has(path)) return [];
  const rules = path.startsWith('test/unit/') ? [...UNIT_RULES, ...CLOCK_RULES] : CLOCK_RULES;
  const found: string[] = [];
  const raw = text.split('\n');
  code(text)
    .split('\n')
    .forEach((line, index) => {
      for (const rule of rules)
        if (rule.pattern.test(line) && !escaped(rule, raw[index] ?? '', raw[index - 1] ?? ''))
          found.push(`${path}:${index + 1}: ${rule.says}`);
      if (INSTANTS.some((instant) => instant.test(line)) && !A_DATE.test(raw[index] ?? ''))
        found.push(`${path}:${index + 1}: ${INSTANT_SAYS}`);
    });
  return found;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === CAMPAIGNS ? [] : testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('time in tests', () => {
  const files = testFiles(TESTS).map((file) => relative(ROOT, file));

  it('no unit test file sleeps for real or declares its own clock or T0', () => {
    const unit = files.filter((path) => path.startsWith('test/unit/'));
    expect(unit.length).toBeGreaterThan(100);
    expect(unit.flatMap((path) => offences(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
  });

  it('no test file of the other tiers (sandbox, e2e, hardening, browser, …) declares its own clock, T0 or instant', () => {
    const others = files.filter((path) => !path.startsWith('test/unit/'));
    for (const tier of ['sandbox', 'e2e', 'hardening'])
      expect(others.some((p) => p.startsWith(`test/${tier}/`))).toBe(true);
    expect(others.flatMap((path) => offences(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
  });

  it('catches each kind, and not what only looks like one', () => {
    // Each offence, and each line that only looks like one, is put together from pieces, so this file holds none itself
    // and is checked like the others (and a search for real sleeps in unit tests does not find this file's examples).
    const bad = [
      ['await new Promise((resolve) => set', 'Timeout(resolve, 200));'],
      ['import { set', "Timeout as sleep } from 'node:timers", "/promises';"],
      ['class CtrlCAt ', 'extends FakeClock {'],
      ['export class FakeClock impl', 'ements Clock {'],
      ['const ', 'T0 = Date.', 'UTC(2026, 0, 1);'],
      ['const timer = set', 'Interval(tick, 10);'],
      ['import { system', "Clock } from '../../src/lib/time.js';"],
      ["import { startWorld } from '../../../camp", "aign/world.js';"],
      ['const NOW = Date.', 'parse("2025-01-01T12:00:00Z");'],
      ['const T = Date.', 'UTC(2026, 10, 25, 12);'],
      ['const at = new Da', "te('2026-11-21T10:00:00Z');"],
      ['const at = new Da', 'te(1732000000000);'],
      ['return { now: () => now, sl', 'eep: async (ms: number) => void (now += ms) };'],
      ['  async sl', 'eep(ms, signal) {'],
      ['  sl', 'eep(ms: number, signal?: AbortSignal): Promise<void> {'],
      ['const shifted = { now: () => Date.', 'now() + 3_600_000 };'],
      ['const started = performance.', 'now();'],
      ['utimesSync(file, new Da', 'te(), then);'],
    ].map((parts) => parts.join(''));
    expect(bad.map((line) => offences('test/unit/x.test.ts', line).length)).toEqual([
      1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ]);
    // Outside test/unit a real timer or the system clock is the tier's business; a clock, T0 or instant of its own is
    // not.
    expect(bad.map((line) => offences('test/sandbox/x.test.ts', line).length)).toEqual([
      0, 0, 1, 1, 2, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0,
    ]);
    const fine = [
      ['// a 200 ms set', 'Timeout( here would be a real sleep'].join(''),
      ['await clock.sl', 'eep(1000);'].join(''),
      ["exec: 'sl", "eep 5',"].join(''),
      'const clock = new FakeClock({ start: T0 + 5 });',
      "vi.useFakeTimers({ toFake: ['setInterval'] });",
      'const stamps = lines.map((line) => Date.parse(line.split(" ")[0]));',
      'created_at: new Date(T0 - 60_000).toISOString(),',
      "const created = '2025-01-15T11:57:00.000Z';",
      "import { FakeClock } from '../../clock.js';",
      ['const leap = Date.', 'UTC(2024, 1, 29); // time-lint: a date (29 February)'].join(''),
      ['const booted = Date.', 'now() - uptime() * 1000; // time-lint: system time (boot time)'].join(''),
      ['await sl', 'eep(100);'].join(''),
      ['sl', 'eep(ms).then(() => {'].join(''),
      'const at = new Date(T0 + 5_000);',
      'lastSeenAt.now(',
      'clock: { now: () => 0, sleep: unused }, // a clock the command must not sleep on',
      '    sleep: (ms, signal) => {',
    ];
    expect(fine.flatMap((line) => offences('test/unit/x.test.ts', line))).toEqual([]);
    // The escape as a comment line of its own, just above the line it lets through; not two lines above.
    const mtime = ['const later = Date.', 'now() + 10_000;'].join('');
    const escape = '// time-lint: system time (a file mtime)';
    expect(offences('test/unit/x.test.ts', [escape, mtime].join('\n'))).toEqual([]);
    expect(offences('test/unit/x.test.ts', [escape, '', mtime].join('\n'))).toHaveLength(1);
    expect(offences(CLOCK, ['export const ', 'T0 = 1;'].join(''))).toEqual([]);
    expect(offences('test/e2e/real-then-virtual-clock.ts', ['export class R implements ', 'Clock {'].join(''))).toEqual(
      [],
    );
    // Named by its own line, after a block comment of two.
    const afterComment = ['/** a\n b */', ['const ', 'T0 = 1;'].join('')].join('\n');
    expect(offences('test/unit/x.test.ts', afterComment)).toEqual([
      'test/unit/x.test.ts:3: a T0 of its own: import T0 from test/clock.ts',
    ]);
  });
});
