import { expect, it } from 'vitest';
import {
  refusedAdvice,
  refusedForSize,
  resumeCommand,
  spending,
  waiting,
} from '../../../../src/core/submit/resume-command.js';

it('names a job by its id, or by a journal path as one shell word, so the printed command runs as it is', () => {
  expect(resumeCommand({ id: 'j-mx2f7gs60skj', yes: true })).toBe('taskctl resume j-mx2f7gs60skj --yes');
  expect(resumeCommand({ id: '/tmp/ci/job.jsonl' }, ' --wait')).toBe('taskctl resume /tmp/ci/job.jsonl --wait');
  expect(resumeCommand({ id: "/tmp/my job's.jsonl", refused: true })).toBe(
    "taskctl resume '/tmp/my job'\\''s.jsonl' --skip-refused",
  );
});

it('carries the flags whose choice the job has not recorded, after the spending flags and before the rest', () => {
  let pending = ' --ignore-job j-b --forget-gone-journal';
  const job = { id: 'j-a', yes: true, unrecorded: () => pending };
  expect(resumeCommand(job, ' --wait')).toBe('taskctl resume j-a --yes --ignore-job j-b --forget-gone-journal --wait');
  pending = ''; // recorded: later hints need no flag
  expect(resumeCommand(job)).toBe('taskctl resume j-a --yes');
});

it('resumeCommand: a gone journal with no window reaching back (a job over a year old) is forgotten, in words before the command, which is alone on its line (it pastes), never a window refused', () => {
  const gone = { path: '/tmp/NEW/jobs/j-a.jsonl', window: (): string | undefined => undefined };
  expect(resumeCommand({ id: 'j-a', yes: true, gone }, ' --adopt 2=7')).toBe(
    '/tmp/NEW/jobs/j-a.jsonl is gone and the job started more than a year ago, further back than any --reuse-window reaches: the resume below buys again whatever that run created of the chunks left (or put that journal back and drop --forget-gone-journal):\ntaskctl resume j-a --yes --forget-gone-journal --adopt 2=7',
  );
  expect(resumeCommand({ id: 'j-a', gone: { ...gone, window: () => '8760h' } })).toBe(
    'taskctl resume j-a --reuse-window 8760h',
  );
});

it('resumeCommand: a journal removed as its job ended there (pruned) is never to be put back: that way is not named', () => {
  const removed = { as: 'finished' as const, service: 's', since: '2025-01-15T12:00:00Z' };
  const gone = { path: '/tmp/NEW/jobs/j-a.jsonl', window: (): string | undefined => undefined, removed };
  const words = resumeCommand({ id: 'j-a', yes: true, gone });
  expect(words).toBe(
    '/tmp/NEW/jobs/j-a.jsonl is gone and the job started more than a year ago, further back than any --reuse-window reaches: the resume below buys again whatever that run created of the chunks left:\ntaskctl resume j-a --yes --forget-gone-journal',
  );
  expect(words).not.toContain('put that journal back');
});

it('carries the wait flags of a run that waits once, also where the hint waits anyway', () => {
  const job = { id: 'j-a', yes: true, wait: ' --wait --allow-item-failures' };
  expect(resumeCommand(job)).toBe('taskctl resume j-a --yes --wait --allow-item-failures');
  expect(resumeCommand(waiting(job))).toBe('taskctl resume j-a --yes --wait --allow-item-failures');
  expect(resumeCommand(waiting({ id: 'j-a', yes: true }))).toBe('taskctl resume j-a --yes --wait');
  expect(resumeCommand(job, ' --adopt 2=7')).toBe('taskctl resume j-a --yes --wait --allow-item-failures --adopt 2=7');
});

it("gives another job's resume only the run's spending flags, never its wait flags", () => {
  const self = { id: 'j-a', yes: true, maxCost: 12, wait: ' --wait --any', refused: true };
  expect(resumeCommand({ ...spending(self), id: 'j-b' })).toBe('taskctl resume j-b --yes --max-cost 12');
  expect(spending({ yes: false })).toEqual({});
});

it('tells a refusal of the size (413, "too many items") from a refusal of an item, and advises each its way', () => {
  for (const words of [
    'creating the task: the server rejected the request as invalid (HTTP 413)',
    'creating the task: too many items: 20000 (max 10000)',
    'creating the task: Request Entity Too Large',
  ])
    expect(refusedForSize(words), words).toBe(true);
  const item = 'creating the task: items[0] "bad item here": contains a space';
  expect(refusedForSize(item)).toBe(false);
  const resume = 'taskctl resume j-mx2f7gs60skj --skip-refused';
  expect(refusedAdvice([item], resume)).toBe(
    `Correct those items and create them on their own; continue the job without them: ${resume}`,
  );
  // One chunk refused for an item among others refused for their size: there are items to correct.
  expect(refusedAdvice(['too many items: 3 (max 2)', item], resume)).toMatch(/^Correct those items/);
  expect(refusedAdvice(['too many items: 3 (max 2)'], resume)).toMatch(
    /^Create those items again with a smaller --chunk-size/,
  );
});
