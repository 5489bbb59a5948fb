/** store/job-places.ts: where this user last ran each job, one small private file per job in the cache directory. */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  fileIdentity,
  keepsPlaces,
  lastJobPlace,
  sameFile,
  recordJobPlace,
  retireJobPlace,
  sweepRetiredPlaces,
} from '../../../src/store/job-places.js';
import { T0 } from '../../clock.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-places-'));
  dirs.push(dir);
  return join(dir, 'cache');
}

it('recorded (0700 directory, 0600 file) and read back; the last record wins; an unchanged one is not written again', () => {
  const cache = cacheDir();
  expect(lastJobPlace(cache, 'j-abcd1234')).toBeUndefined();
  const journal = join(cache, '..', 'job.jsonl');
  writeFileSync(journal, '');
  const place = { path: journal, ...(fileIdentity(journal) ?? { dev: '', ino: '' }) };
  expect(place.ino).toMatch(/^\d+$/);
  recordJobPlace(cache, 'j-abcd1234', place);
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual(place);
  const file = join(cache, 'places', 'j-abcd1234.json');
  expect(statSync(join(cache, 'places')).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const written = statSync(file).ino;
  recordJobPlace(cache, 'j-abcd1234', place);
  expect(statSync(file).ino).toBe(written); // not replaced
  recordJobPlace(cache, 'j-abcd1234', { ...place, path: '/elsewhere/job.jsonl' });
  expect(lastJobPlace(cache, 'j-abcd1234')?.path).toBe('/elsewhere/job.jsonl');
  expect(lastJobPlace(cache, 'j-other123')).toBeUndefined();
});

it("how far the journal got (its size, the last chunk named) is kept with the place, and replaces the record when it changes; an earlier version's record has none", () => {
  const cache = cacheDir();
  const place = { path: '/state/jobs/j-abcd1234.jsonl', dev: '1', ino: '2' };
  recordJobPlace(cache, 'j-abcd1234', { ...place, size: 900, reached: 3 });
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual({ ...place, size: 900, reached: 3 });
  const file = join(cache, 'places', 'j-abcd1234.json');
  const written = statSync(file).ino;
  recordJobPlace(cache, 'j-abcd1234', { ...place, size: 1200, reached: 4 });
  expect(statSync(file).ino).not.toBe(written);
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual({ ...place, size: 1200, reached: 4 });
  writeFileSync(file, JSON.stringify(place));
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual(place);
});

it('a damaged record, or a name that is no job id, is no record', () => {
  const cache = cacheDir();
  recordJobPlace(cache, 'j-abcd1234', { path: '/a', dev: '1', ino: '2' });
  writeFileSync(join(cache, 'places', 'j-abcd1234.json'), '{"path": 7}');
  expect(lastJobPlace(cache, 'j-abcd1234')).toBeUndefined();
  writeFileSync(join(cache, 'places', 'j-abcd1234.json'), 'not json');
  expect(lastJobPlace(cache, 'j-abcd1234')).toBeUndefined();
  recordJobPlace(cache, '../escape', { path: '/a', dev: '1', ino: '2' });
  expect(lastJobPlace(cache, '../escape')).toBeUndefined();
  expect(readFileSync(join(cache, 'places', 'j-abcd1234.json'), 'utf8')).toBe('not json');
});

it('retired, not forgotten, with the journal it names (a job pruned), or with none on record; never when it names another file (a copy elsewhere)', () => {
  const cache = cacheDir();
  const journal = join(cache, '..', 'job.jsonl');
  writeFileSync(journal, '');
  recordJobPlace(cache, 'j-abcd1234', { path: journal, dev: '1', ino: '2' });
  retireJobPlace(cache, 'j-abcd1234', join(cache, '..', 'other.jsonl'), 'finished', T0);
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual({ path: journal, dev: '1', ino: '2' });
  rmSync(journal);
  retireJobPlace(cache, 'j-abcd1234', journal, 'finished', T0);
  const at = new Date(T0).toISOString();
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual({
    path: journal,
    dev: '1',
    ino: '2',
    removed: { at, as: 'finished' },
  });
  retireJobPlace(cache, 'j-abcd1234', journal, 'finished', T0 + 1000); // retired already: left as it was
  expect(lastJobPlace(cache, 'j-abcd1234')?.removed?.at).toBe(at);
  retireJobPlace(cache, 'j-none1234', journal, 'superseded', T0);
  expect(lastJobPlace(cache, 'j-none1234')).toEqual({
    path: journal,
    dev: '',
    ino: '',
    removed: { at, as: 'superseded' },
  });
});

it('a retired record is swept once older than what is kept, judged by its date first; a live record never', () => {
  const cache = cacheDir();
  const now = Date.now(); // time-lint: system time (the files' own dates are the system's)
  recordJobPlace(cache, 'j-live1234', { path: '/a.jsonl', dev: '1', ino: '2' });
  retireJobPlace(cache, 'j-old12345', '/b.jsonl', 'finished', now - 10_000);
  retireJobPlace(cache, 'j-new12345', '/c.jsonl', 'finished', now);
  for (const id of ['j-live1234', 'j-old12345', 'j-new12345']) {
    const old = (now - 20_000) / 1000;
    utimesSync(join(cache, 'places', `${id}.json`), old, old);
  }
  sweepRetiredPlaces(cache, 5000, now);
  expect(lastJobPlace(cache, 'j-live1234')?.path).toBe('/a.jsonl');
  expect(lastJobPlace(cache, 'j-old12345')).toBeUndefined();
  expect(lastJobPlace(cache, 'j-new12345')?.path).toBe('/c.jsonl'); // removed 0 s ago by its record
  sweepRetiredPlaces(join(cache, 'none'), 5000, now); // no directory: no error
});

it("a writer's temporary file left by a kill is swept once older than what is kept; a fresh one (a writer at work) stays", () => {
  const cache = cacheDir();
  const now = Date.now(); // time-lint: system time (the files' own dates are the system's)
  recordJobPlace(cache, 'j-live1234', { path: '/a.jsonl', dev: '1', ino: '2' });
  const left = join(cache, 'places', '.j-live1234.json.4242.0a1b2c3d.tmp');
  const fresh = join(cache, 'places', '.j-live1234.json.4243.0a1b2c3e.tmp');
  writeFileSync(left, '{"path":"/a.js');
  writeFileSync(fresh, '{"path":"/a.js');
  utimesSync(left, (now - 20_000) / 1000, (now - 20_000) / 1000);
  sweepRetiredPlaces(cache, 5000, now);
  expect(existsSync(left)).toBe(false);
  expect(existsSync(fresh)).toBe(true);
  expect(lastJobPlace(cache, 'j-live1234')?.path).toBe('/a.jsonl');
});

it('a job removed as lost is recorded as lost, never finished; a word it cannot read is read as finished', () => {
  const cache = cacheDir();
  retireJobPlace(cache, 'j-lost1234', '/d.jsonl', 'lost', T0);
  expect(lastJobPlace(cache, 'j-lost1234')?.removed).toEqual({ at: new Date(T0).toISOString(), as: 'lost' });
  const file = join(cache, 'places', 'j-lost1234.json');
  writeFileSync(file, JSON.stringify({ path: '/d.jsonl', dev: '', ino: '', removed: { at: 'x', as: 'gone' } }));
  expect(lastJobPlace(cache, 'j-lost1234')?.removed).toEqual({ at: 'x', as: 'finished' });
});

it("keepsPlaces: only a cache directory whose places is a directory of this user's, never one a link leads to", () => {
  const cache = cacheDir();
  expect(keepsPlaces(cache)).toBe(false); // no such directory
  mkdirSync(cache);
  expect(keepsPlaces(cache)).toBe(false); // no records kept there
  const elsewhere = join(cache, '..', 'elsewhere');
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(cache, 'places'));
  expect(keepsPlaces(cache)).toBe(false);
  rmSync(join(cache, 'places'));
  writeFileSync(join(cache, 'places'), '');
  expect(keepsPlaces(cache)).toBe(false);
  rmSync(join(cache, 'places'));
  recordJobPlace(cache, 'j-abcd1234', { path: '/some/job.jsonl', dev: '1', ino: '2' });
  expect(keepsPlaces(cache)).toBe(true);
});

it('sameFile: the same device and inode, and the same birth where both know one (a freed inode reused is another file)', () => {
  const file = { dev: '1', ino: '2', born: '100' };
  expect(sameFile(file, { ...file })).toBe(true);
  expect(sameFile(file, { ...file, born: '101' })).toBe(false);
  expect(sameFile(file, { dev: '1', ino: '2' })).toBe(true); // a record of an earlier version
  expect(sameFile(file, { ...file, ino: '3' })).toBe(false);
  expect(sameFile(file, undefined)).toBe(false);
  const cache = cacheDir();
  recordJobPlace(cache, 'j-abcd1234', { path: '/some/job.jsonl', ...file });
  expect(lastJobPlace(cache, 'j-abcd1234')).toEqual({ path: '/some/job.jsonl', ...file });
});
