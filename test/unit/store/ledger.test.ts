/** The local ledger of in-flight creates: write-ahead entries, claims, contests, expiry, job transfer. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAIM_KEEP_MS, CreateLedger, itemsDigest, MAX_ENTRIES, type LedgerEntry } from '../../../src/store/ledger.js';
import { entryOwner, ownerGone, whereWords } from '../../../src/store/process-owner.js';
import { T0 } from '../../clock.js';
import { bootedAt, notRunningPid, OTHER_BOOT, OTHER_PIDNS, thisBoot, thisPidns } from '../pids.js';
import { skippedUnless } from '../../skip-reason.js';
import { readOnlyFs, withFailingFs } from './failing-fs.js';

let dir: string;
let now: number;
const ledger = (run?: string) => new CreateLedger(dir, () => now, run);
const intent = (items = ['a.com', 'b.com'], extra = {}) => ({
  account: 'acct1',
  service: 'svc',
  items,
  liveForMs: 130_000,
  ...extra,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-ledger-'));
  now = T0;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('itemsDigest', () => {
  it('is the same for the same multiset in any order, and differs with a duplicate or another item', () => {
    expect(itemsDigest(['a', 'b', 'c'])).toBe(itemsDigest(['c', 'a', 'b']));
    expect(itemsDigest(['a', 'a', 'b'])).not.toBe(itemsDigest(['a', 'b', 'b']));
    expect(itemsDigest(['a', 'b'])).not.toBe(itemsDigest(['a', 'c']));
  });
});

describe('CreateLedger', () => {
  it('an entry is on disk before the POST (write-ahead), settles with its task, and is seen by another run', () => {
    const a = ledger('run-a');
    const b = ledger('run-b');
    const mine = a.begin(intent());
    expect(JSON.parse(readFileSync(join(dir, 'creates.json'), 'utf8')).entries).toHaveLength(1);
    const theirs = b.begin(intent());
    expect(b.others(theirs).map((e) => e.state)).toEqual(['sending']);
    a.settle(mine.id, 41);
    expect(b.others(theirs)).toEqual([expect.objectContaining({ state: 'created', taskId: 41, run: 'run-a' })]);
  });

  it('claim: refused for a task another entry names, and for a task a possible creator contests', () => {
    const a = ledger('run-a');
    const b = ledger('run-b');
    const c = ledger('run-c');
    const entryA = a.begin(intent());
    const entryB = b.begin(intent());
    b.settle(entryB.id, 7);
    expect(a.claim(entryA, 7, () => false)).toMatchObject({ ok: false, reason: 'claimed' });
    const entryC = c.begin(intent());
    expect(a.claim(entryA, 8, (other) => other.id === entryC.id)).toMatchObject({
      ok: false,
      reason: 'contested',
      by: { run: 'run-c' },
    });
    expect(a.claim(entryA, 8, () => false)).toEqual({ ok: true });
    expect(c.others(entryC).find((e) => e.run === 'run-a')).toMatchObject({ state: 'created', taskId: 8 });
  });

  it('claim: a claim of the same id whose recorded task facts differ is stale (the ids restarted), not a refusal', () => {
    const a = ledger('run-a');
    const b = ledger('run-b');
    const created = new Date(T0).toISOString();
    const first = { id: 1, service: 'svc', total_items: 2, created_at: created };
    expect(a.claim(a.begin(intent()), first, () => false)).toEqual({ ok: true });
    const mine = b.begin(intent());
    // The same task, its time written to another precision: still the other run's.
    expect(b.claim(mine, { ...first, created_at: created.replace('.000Z', 'Z') }, () => false)).toMatchObject({
      ok: false,
      reason: 'claimed',
    });
    // Task 1 given out again: another creation time, another count, another service.
    const later = new Date(T0 + 60_000).toISOString();
    expect(b.claim(mine, { ...first, service: 'other' }, () => false)).toEqual({ ok: true });
    expect(b.claim(mine, { ...first, total_items: 1 }, () => false)).toEqual({ ok: true });
    expect(b.claim(mine, { ...first, created_at: later }, () => false)).toEqual({ ok: true });
    expect(a.read().find((entry) => entry.id === mine.id)).toMatchObject({
      state: 'created',
      ...{ taskId: 1, taskCreatedAt: later, taskItems: 2 },
    });
  });

  it('holds: an entry of an earlier version (no facts recorded) names a task of its service with no more items', () => {
    const a = ledger('run-a');
    const entry = a.begin(intent());
    a.settle(entry.id, 1);
    const [settled] = ledger('run-b').others(a.begin(intent(['c.com'])));
    const task = { id: 1, service: 'svc', total_items: 2, created_at: new Date(T0).toISOString() };
    expect(a.holds(settled!, task)).toBe(true);
    expect(a.holds(settled!, { ...task, total_items: 1 })).toBe(true);
    expect(a.holds(settled!, { ...task, total_items: 3 })).toBe(false);
    expect(a.holds(settled!, { ...task, service: 'other' })).toBe(false);
    expect(a.holds(settled!, 1)).toBe(true);
  });

  it('entries of other accounts, services or items do not contest; claims of the same account always count', () => {
    const a = ledger('run-a');
    const b = ledger('run-b');
    const mine = a.begin(intent());
    b.begin(intent(['other.com', 'b.com']));
    b.begin(intent(undefined, { account: 'acct2' }));
    const settled = b.begin(intent(['x.com']));
    b.settle(settled.id, 99);
    expect(a.others(mine).map((e) => e.taskId)).toEqual([99]);
  });

  it('entries of a key proved to be the same account (a rotated key) count as that account: claims and contests', () => {
    const same = (account: string) => new Set(['acct1', 'acct2'].includes(account) ? ['acct1', 'acct2'] : [account]);
    const old = ledger('run-old');
    const settled = old.begin(intent(['x.com']));
    old.settle(settled.id, 99);
    const unsure = old.begin(intent());
    old.unknown(unsure.id);
    const rotated = new CreateLedger(dir, () => now, 'run-new', same);
    const mine = rotated.begin(intent(undefined, { account: 'acct2' }));
    expect(rotated.others(mine).map((e) => e.id)).toEqual([settled.id, unsure.id]);
    expect(rotated.claim(mine, 99, () => false)).toMatchObject({ ok: false, reason: 'claimed' });
    expect(rotated.claim(mine, 5, (o) => o.id === unsure.id)).toMatchObject({ ok: false, reason: 'contested' });
    // Without the proof: another account, as before.
    expect(ledger('run-plain').others(mine)).toEqual([]);
  });

  it('unknown keeps an entry (with its answer time) for CLAIM_KEEP_MS; drop removes it', () => {
    const a = ledger('run-a');
    const b = ledger('run-b');
    const gone = a.begin(intent());
    const unsure = a.begin(intent());
    const other = b.begin(intent());
    a.drop(gone.id);
    a.unknown(unsure.id, T0 + 50);
    expect(b.others(other)).toEqual([expect.objectContaining({ id: unsure.id, state: 'unknown', closedAt: T0 + 50 })]);
    now = T0 + CLAIM_KEEP_MS + 1;
    expect(b.others(other)).toEqual([]);
  });

  it('the entry of a run that died while sending lives until its send plus the horizon it was given', () => {
    const dead = ledger('run-dead');
    dead.begin(intent(undefined, { liveForMs: 130_000 }));
    const b = ledger('run-b');
    now = T0 + 129_000;
    const mine = b.begin(intent());
    expect(b.others(mine)).toHaveLength(1);
    now = T0 + 130_001;
    expect(b.others(mine)).toHaveLength(0);
  });

  it('a journaled chunk carries its job; resume takes the entry over as its own (transfer)', () => {
    const first = ledger('run-1');
    const job = { journal: '/tmp/big.journal', chunk: 3 };
    first.begin(intent(undefined, { job }));
    expect(first.findJob(job)).toMatchObject({ run: 'run-1', job });
    const resume = ledger('run-2');
    const taken = resume.transfer(job);
    expect(taken).toMatchObject({ run: 'run-2', job, state: 'sending' });
    expect(resume.findJob(job)?.run).toBe('run-2');
    // Now the resuming run's own: it may claim the chunk's task, and no other entry contests it.
    const other = ledger('run-3').begin(intent());
    expect(resume.claim(taken!, 12, (o) => o.id === other.id)).toMatchObject({ ok: false, reason: 'contested' });
    expect(resume.claim(taken!, 12, () => false)).toEqual({ ok: true });
    expect(resume.transfer({ journal: '/tmp/other.journal', chunk: 3 })).toBeUndefined();
  });

  it("another local run cannot take a journaled chunk's task: before the resume (contested), nor after (claimed)", () => {
    const job = { journal: '/tmp/big.journal', chunk: 2 };
    ledger('killed').begin(intent(undefined, { job }));
    const other = ledger('other');
    const mine = other.begin(intent());
    const sameWindow = () => true;
    expect(other.claim(mine, 40, sameWindow)).toMatchObject({ ok: false, reason: 'contested', by: { job } });
    other.drop(mine.id); // that run learnt its request was refused
    const resume = ledger('resume');
    now += 60_000; // the killed run's entry lives on past its send, and the resume extends it (transfer's liveForMs)
    const taken = resume.transfer(job, 120_000);
    expect(taken?.expiresAt).toBe(now + 120_000);
    expect(resume.claim(taken!, 40, sameWindow)).toEqual({ ok: true });
    const later = other.begin(intent());
    expect(other.claim(later, 40, () => false)).toMatchObject({ ok: false, reason: 'claimed', by: { job } });
  });

  it('an entry entered again at resume keeps the recorded send time', () => {
    const job = { journal: '/tmp/big.journal', chunk: 5 };
    const entry = ledger('resume').begin(intent(undefined, { job, sentAt: now - 90_000 }));
    expect(entry).toMatchObject({ sentAt: now - 90_000, state: 'sending', job });
    expect(entry.expiresAt).toBeGreaterThan(now);
  });

  it('bounded: at most MAX_ENTRIES, the oldest dropped first', () => {
    const a = ledger('run-a');
    const entries: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 5; i++) {
      now = T0 + i;
      entries.push({
        id: `e${i}`,
        run: 'x',
        pid: 1,
        host: 'h',
        account: 'acct1',
        service: 'svc',
        count: 1,
        digest: 'd',
        sentAt: T0 + i,
        state: 'sending',
        expiresAt: T0 + 1e9,
      });
    }
    const many = Array.from({ length: MAX_ENTRIES }, (_, i) => ({ ...entries[0]!, id: `m${i}`, sentAt: T0 + 10 + i }));
    writeFileSync(join(dir, 'creates.json'), JSON.stringify({ version: 1, entries: [...entries, ...many] }));
    now = T0 + 10_000;
    a.begin(intent());
    const kept = JSON.parse(readFileSync(join(dir, 'creates.json'), 'utf8')).entries as Array<{ id: string }>;
    expect(kept).toHaveLength(MAX_ENTRIES);
    expect(kept.some((e) => /^e\d$/.test(e.id))).toBe(false); // e0..e4, the oldest
  });

  it('a corrupt file is started afresh; a file that is a directory makes the ledger unavailable', () => {
    writeFileSync(join(dir, 'creates.json'), '{not json');
    const a = ledger();
    expect(a.read()).toEqual([]);
    a.begin(intent());
    expect(a.read()).toHaveLength(1);
    const other = mkdtempSync(join(tmpdir(), 'taskctl-ledger-'));
    try {
      rmSync(other, { recursive: true });
      const blocked = new CreateLedger(join(other, 'x'), () => now);
      // A directory where the file belongs: refused like any state file that is not a regular file.
      mkdirSync(join(other, 'x', 'creates.json'), { recursive: true });
      expect(() => blocked.begin(intent())).toThrow(/not a regular file/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('a cache directory it cannot write says why in words, naming the file; no errno name or Node text', () => {
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const messages = [
      withFailingFs(readOnlyFs, () => failure(() => ledger().begin(intent()))),
      failure(() => new CreateLedger(join(file, 'cache'), () => now).begin(intent())),
    ];
    expect(messages).toEqual([
      `cannot lock ${join(dir, 'creates.json.lock')}: the file system is read-only`,
      `cannot make the cache directory ${join(file, 'cache')}: ${file} is a file, not a directory`,
    ]);
  });
});

const LINUX = process.platform === 'linux';
describe.runIf(LINUX)(
  skippedUnless('whose run an entry names: judged as a lock owner is', LINUX, 'boot ids and pid namespaces are Linux'),
  () => {
    const boot = thisBoot;
    const pidns = thisPidns;
    const OTHER_NS = OTHER_PIDNS;
    /** An entry of another run of this host name, with `owner` replacing what its process wrote. */
    const entryOf = (owner: Partial<LedgerEntry>): LedgerEntry => ({ ...ledger('other').begin(intent()), ...owner });
    const gone = (entry: LedgerEntry) => ownerGone(entryOwner(entry));

    it('an entry names the boot, pid namespace and time of the process that wrote it; a takeover renames them', () => {
      const job = { journal: 'j-00000000abcd', chunk: 1 };
      const written = ledger('first').begin(intent(undefined, { job }));
      expect(written).toMatchObject({ pid: process.pid, host: hostname(), boot: boot(), pidns: pidns(), ownedAt: now });
      const file = JSON.parse(readFileSync(join(dir, 'creates.json'), 'utf8')) as { entries: LedgerEntry[] };
      file.entries = file.entries.map((e) => ({ ...e, pid: notRunningPid(), boot: OTHER_BOOT, pidns: OTHER_NS }));
      writeFileSync(join(dir, 'creates.json'), JSON.stringify(file));
      now += 1000;
      const taken = ledger('resume').transfer(job);
      expect(taken).toMatchObject({ pid: process.pid, boot: boot(), pidns: pidns(), ownedAt: now });
    });

    it('an entry whose pid runs but whose boot is another, written before this boot: its run has ended', () => {
      const entry = entryOf({ pid: process.ppid, boot: OTHER_BOOT, ownedAt: bootedAt() - 60_000 });
      expect(gone(entry)).toBe(true);
      expect(gone({ ...entry, boot: boot() })).toBe(false);
    });

    it('another boot written since this boot (a machine of the same name): running, whatever its pid', () => {
      const entry = entryOf({ pid: notRunningPid(), boot: OTHER_BOOT, ownedAt: bootedAt() + 60_000 }); // since this boot
      expect(gone(entry)).toBe(false);
      expect(whereWords(entryOwner(entry))).toBe(`on another machine named ${hostname()}`);
      // Without its time of writing it counts as since this boot: a wait, never a live run taken for dead.
      const { ownedAt: _at, ...undated } = entry;
      expect(gone(undated)).toBe(false);
    });

    it('this host name and another pid namespace (another container): never judged dead by a pid looked up here', () => {
      const entry = entryOf({ pid: notRunningPid(), pidns: OTHER_NS });
      expect(gone(entry)).toBe(false);
      expect(whereWords(entryOwner(entry))).toBe(`in another container of this machine (pid namespace ${OTHER_NS})`);
      expect(gone({ ...entry, pidns: pidns() })).toBe(true);
    });

    it('an entry of an earlier version (no boot, no pid namespace, no time) is judged by host and pid, as before', () => {
      const { boot: _b, pidns: _p, ownedAt: _o, ...old } = entryOf({ pid: notRunningPid() });
      expect(gone(old)).toBe(true);
      expect(gone({ ...old, pid: process.ppid })).toBe(false);
      expect(gone({ ...old, host: 'build-7' })).toBe(false);
      // Read back from a file of that version, it is one of the ledger's entries.
      writeFileSync(join(dir, 'creates.json'), JSON.stringify({ version: 1, entries: [old] }));
      expect(ledger().read()).toEqual([old]);
    });
  },
);

/** The message of what `action` throws. */
function failure(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}
