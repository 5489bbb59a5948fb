import { InvalidArgumentError } from 'commander';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { absolutePath, byteSize, jobArgument, positiveInt } from '../../../src/commands/parsers.js';
import { mockApi, runTaskctl } from './run-in-process.js';

describe('byteSize (--max-body)', () => {
  it('reads binary units and plain bytes', () => {
    expect(byteSize('1MiB')).toBe(1024 * 1024);
    expect(byteSize('1mb')).toBe(1024 * 1024);
    expect(byteSize('256KiB')).toBe(256 * 1024);
    expect(byteSize('512k')).toBe(512 * 1024);
    expect(byteSize('1.5MiB')).toBe(1.5 * 1024 * 1024);
    expect(byteSize('2048')).toBe(2048);
    expect(byteSize(' 10 b ')).toBe(10);
  });

  it('refuses anything else, zero and more than 1 GiB', () => {
    for (const bad of ['', '0', 'lots', '1TiB', '-5', '2GiB', '1e9']) {
      expect(() => byteSize(bad), bad).toThrow(InvalidArgumentError);
    }
  });
});

describe('files a hint names (--journal, --job, resume)', () => {
  it('are made absolute from the working directory; a job id that is no file stays as typed', () => {
    expect(absolutePath('jobs/new.jsonl')).toBe(resolve('jobs/new.jsonl'));
    const existing = relative(process.cwd(), resolve('package.json'));
    expect(jobArgument(existing)).toBe(resolve('package.json'));
    expect(jobArgument('j-mi3k2x1a7f3q')).toBe('j-mi3k2x1a7f3q');
  });

  it('an empty -f or --journal (an unset shell variable) names no file: exit 2 before stdin is read or anything sent', async () => {
    const S = 'domain_check_availability';
    const items = 'Name a file of items after -f (`-f -` reads stdin); is a shell variable unset?';
    const journal =
      'Name the journal file after --journal, or leave --journal out (the job is kept in the state directory); is a shell variable unset?';
    const api = mockApi();
    for (const [args, hint] of [
      [['create', S, '-f', '', '-y'], items],
      [['create', S, '-f', 'a.txt', '-f', ''], items],
      [['create', S, '-f', ',', '-y'], items],
      [['create', S, 'a.com', '--journal', ''], journal],
      [['create', S, 'a.com', '--journal', '', '--dry-run'], journal],
      [['retry', '5', '--journal', ''], journal],
      [['retry', '--job', 'j-mi3k2x1a7f3q', '--journal', ''], journal],
    ] as const) {
      const result = await runTaskctl([...args], { api, stdin: 'emptyf.com\n' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual(['error: an empty argument names no file', hint]);
    }
    expect(api.calls).toEqual([]);
  });
});

describe('positiveInt (--page, --limit, --chunk-size)', () => {
  it('refuses a number past 2^53 - 1, which would be sent rounded (another page than asked)', () => {
    expect(positiveInt()('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const big of ['9007199254740992', '9007199254740993', '99999999999999999999']) {
      expect(() => positiveInt()(big), big).toThrow('expected at most 9007199254740991.');
    }
    expect(() => positiveInt(100)('101')).toThrow('expected at most 100.');
  });
});
