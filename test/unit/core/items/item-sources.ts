import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CliError, InputError, UsageError } from '../../../../src/errors.js';
import type { InputStream } from '../../../../src/output/io.js';
import { readItems } from '../../../../src/core/items/index.js';
import type { ReadItemsOptions } from '../../../../src/core/items/index.js';

/** An in-memory stdin that yields the given chunks (strings are UTF-8 encoded). */
export function streamOf(chunks: ReadonlyArray<Buffer | Uint8Array | string>, isTTY?: boolean): InputStream {
  async function* generate(): AsyncGenerator<Buffer> {
    for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
  }
  const stream = generate() as AsyncGenerator<Buffer> & { isTTY?: boolean };
  if (isTTY !== undefined) stream.isTTY = isTTY;
  return stream;
}

/** A stdin that produces `make(n)` for pull n until it returns undefined, counting pulls and whether it was stopped. */
export function producer(make: (pull: number) => Buffer | undefined): {
  stream: InputStream;
  pulls: () => number;
  stopped: () => boolean;
} {
  let pulls = 0;
  let stopped = false;
  async function* generate(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = make(pulls++);
        if (chunk === undefined) return;
        yield chunk;
      }
    } finally {
      stopped = true;
    }
  }
  return { stream: generate(), pulls: () => pulls, stopped: () => stopped };
}

/** Items read from one in-memory stdin. */
export async function itemsFrom(
  chunks: ReadonlyArray<Buffer | Uint8Array | string>,
  options?: ReadItemsOptions,
): Promise<string[]> {
  const { items } = await readItems([{ kind: 'stdin', stream: streamOf(chunks) }], options);
  return items;
}

/** The error a promise rejects with, asserted to be an `InputError` (exit 3) whose message matches. */
export async function inputError(promise: Promise<unknown>, message: RegExp): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InputError);
  const inputErr = error as InputError;
  expect(inputErr.exitCode).toBe(3);
  expect(inputErr.message).toMatch(message);
  return inputErr;
}

export async function usageError(promise: Promise<unknown>, message: RegExp): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as CliError).exitCode).toBe(2);
  expect((error as CliError).message).toMatch(message);
  return error as UsageError;
}

/** A fresh temporary directory and its remover. */
export interface TempDir {
  dir: string;
  path: (name: string) => string;
  remove: () => Promise<void>;
}

export async function makeTempDir(): Promise<TempDir> {
  const dir = await mkdtemp(join(tmpdir(), 'taskctl-items-'));
  return { dir, path: (name) => join(dir, name), remove: () => rm(dir, { recursive: true, force: true }) };
}
