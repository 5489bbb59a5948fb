/** store/job-places.ts: where this user last ran each job, one small private file per job in the cache directory. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { fileIdentity, forgetJobPlace, lastJobPlace, recordJobPlace } from '../../../src/store/job-places.js';

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

it('forgotten with the journal it names (a job pruned), never when it names another file (a copy elsewhere)', () => {
  const cache = cacheDir();
  const journal = join(cache, '..', 'job.jsonl');
  writeFileSync(journal, '');
  recordJobPlace(cache, 'j-abcd1234', { path: journal, dev: '1', ino: '2' });
  forgetJobPlace(cache, 'j-abcd1234', join(cache, '..', 'other.jsonl'));
  expect(lastJobPlace(cache, 'j-abcd1234')?.path).toBe(journal);
  rmSync(journal);
  forgetJobPlace(cache, 'j-abcd1234', journal);
  expect(lastJobPlace(cache, 'j-abcd1234')).toBeUndefined();
  forgetJobPlace(cache, 'j-abcd1234', journal); // nothing left: no error
});
