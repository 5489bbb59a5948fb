import { expect, it } from 'vitest';
import { resumeCommand } from '../../../../src/core/submit/types.js';

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
