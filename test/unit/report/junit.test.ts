import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/api/schemas.js';
import { UNLISTED_ITEMS } from '../../../src/lib/task-state.js';
import { junitReport, xmlAttr, xmlText } from '../../../src/report/junit.js';
import { findAll, parseXml } from './xml.js';

const base = {
  service: 'domain_check_availability',
  cost: 3,
  created_at: '2026-11-21T10:00:00.000Z',
  started_at: '2026-11-21T10:00:01.000Z',
};

const completedWithFailure: Task = {
  ...base,
  id: 12,
  status: 'completed',
  total_items: 3,
  completed_at: '2026-11-21T10:00:03.500Z',
  items: [
    { target: 'ok.com', status: 'completed', data: { available: true } },
    { target: 'taken.com', status: 'completed', data: { available: false } },
    { target: 'fail-x.com', status: 'failed', data: null, error: 'Simulated item failure' },
  ],
};

const failedTask: Task = {
  ...base,
  id: 13,
  status: 'failed',
  total_items: 3,
  failed_at: '2026-11-21T10:00:02.000Z',
  error_message: 'Processing failed at item 2',
  items: [
    { target: 'a.com', status: 'completed', data: { available: true } },
    { target: 'taskfail-b.com', status: 'failed', error: 'Simulated task failure' },
    { target: 'c.com', status: 'pending', data: null },
  ],
};

describe('junitReport', () => {
  it('has one suite per task and one testcase per item, named by target, classname the service', () => {
    const doc = parseXml(junitReport([completedWithFailure]));
    expect(doc.name).toBe('testsuites');
    const suites = findAll(doc, 'testsuite');
    expect(suites).toHaveLength(1);
    const cases = findAll(suites[0]!, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(['ok.com', 'taken.com', 'fail-x.com']);
    expect(new Set(cases.map((c) => c.attrs.classname))).toEqual(new Set(['domain_check_availability']));
  });

  it('counts tests, failures, errors, skipped and time on the suite and the totals', () => {
    const doc = parseXml(junitReport([completedWithFailure, failedTask]));
    const [first, second] = findAll(doc, 'testsuite');
    expect(first!.attrs).toMatchObject({ tests: '3', failures: '1', errors: '0', skipped: '0', time: '2.500' });
    // The failed task: a.com passes, taskfail-b.com fails, c.com was never processed, plus the task's own error case.
    expect(second!.attrs).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1', time: '1.000' });
    expect(doc.attrs).toMatchObject({ tests: '7', failures: '2', errors: '1', skipped: '1', time: '3.500' });
  });

  it('makes a failed item a <failure> with its error and data', () => {
    const doc = parseXml(junitReport([completedWithFailure]));
    const failures = findAll(doc, 'failure');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.attrs.message).toBe('Simulated item failure');
    expect(failures[0]!.text).toContain('Simulated item failure');
    expect(findAll(doc, 'testcase').find((c) => c.attrs.name === 'ok.com')!.children).toEqual([]);
  });

  it('reports a failed task as an <error> with its message, and its unprocessed items as skipped', () => {
    const doc = parseXml(junitReport([failedTask]));
    const errors = findAll(doc, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.attrs).toMatchObject({ message: 'Processing failed at item 2', type: 'task_failed' });
    const errorCase = findAll(doc, 'testcase').find((c) => c.children.some((child) => child.name === 'error'));
    expect(errorCase!.attrs).toMatchObject({ name: 'task 13', classname: 'domain_check_availability' });
    const skipped = findAll(doc, 'testcase').find((c) => c.attrs.name === 'c.com')!;
    expect(skipped.children[0]!.name).toBe('skipped');
  });

  it('escapes markup and quotes, keeps line breaks in attributes, and strips characters XML cannot hold', () => {
    const nasty = 'a<b>&"c\' \u0000\u0007\u001b[31mred\u007f\ud800 x\ny';
    const task: Task = {
      ...completedWithFailure,
      service: 'svc"<&>',
      items: [{ target: nasty, status: 'failed', error: nasty, data: { note: nasty } }],
    };
    const xml = junitReport([task]);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ud800]/);
    const doc = parseXml(xml);
    const testcase = findAll(doc, 'testcase')[0]!;
    expect(testcase.attrs.name).toBe('a<b>&"c\' [31mred x\ny');
    expect(testcase.attrs.classname).toBe('svc"<&>');
    expect(findAll(doc, 'failure')[0]!.text).toContain('a<b>&"c\'');
  });

  it('escape helpers', () => {
    expect(xmlText('<&>"')).toBe('&lt;&amp;&gt;"');
    expect(xmlAttr('"\'\t\n\r')).toBe('&quot;&apos;&#9;&#10;&#13;');
    expect(xmlText('\ud83d\ude00 ok')).toBe('\ud83d\ude00 ok');
  });

  it('is a valid empty report for no tasks', () => {
    const doc = parseXml(junitReport([]));
    expect(doc.attrs).toMatchObject({ tests: '0', failures: '0', errors: '0', skipped: '0', time: '0.000' });
  });

  it('makes every item a completed task did not complete a <failure>: error, skipped, unknown statuses', () => {
    const task: Task = {
      ...completedWithFailure,
      total_items: 4,
      items: [
        { target: 'ok.com', status: 'completed', data: { available: true } },
        { target: 'err.com', status: 'error', data: null },
        { target: 'skip.com', status: 'skipped' },
        { target: 'odd.com', status: 'pending' },
      ],
    };
    const doc = parseXml(junitReport([task]));
    const [suite] = findAll(doc, 'testsuite');
    expect(suite!.attrs).toMatchObject({ tests: '4', failures: '3', skipped: '0' });
    expect(findAll(doc, 'failure').map((f) => f.attrs.type)).toEqual(['item_error', 'item_skipped', 'item_pending']);
    const properties = Object.fromEntries(findAll(doc, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(properties).toMatchObject({ 'task.completed_items': '1', 'task.failed_items': '3' });
  });

  it('reports a task that ended under another word (cancelled, an unknown status with a finish time) as an <error>', () => {
    const cancelled: Task = { ...failedTask, status: 'cancelled', error_message: null };
    const archived: Task = { ...completedWithFailure, id: 14, status: 'archived' };
    const doc = parseXml(junitReport([cancelled, archived]));
    const errors = findAll(doc, 'error');
    expect(errors.map((e) => e.attrs.message)).toEqual([
      'the task ended with status "cancelled"',
      'the task ended with status "archived"',
    ]);
  });

  it('makes the items a completed task does not list one <error> testcase and counts them in failed_items', () => {
    const task: Task = { ...completedWithFailure, total_items: 5, items: [completedWithFailure.items![0]!] };
    const doc = parseXml(junitReport([task]));
    const [suite] = findAll(doc, 'testsuite');
    expect(suite!.attrs).toMatchObject({ tests: '2', failures: '0', errors: '1' });
    const cases = findAll(suite!, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(['ok.com', '4 items not listed']);
    expect(findAll(doc, 'error').map((e) => e.attrs)).toEqual([
      { message: 'task 12 lists 1 of its 5 items', type: 'items_not_listed' },
    ]);
    const properties = Object.fromEntries(findAll(doc, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(properties).toMatchObject({ 'task.completed_items': '1', 'task.failed_items': '4' });
  });

  it('a task as a wait last saw it (its items not kept, their count kept): the message says what it listed', () => {
    const seen: Task = {
      ...completedWithFailure,
      total_items: 5,
      items: undefined,
      completed_items: 1,
      failed_items: 0,
      [UNLISTED_ITEMS]: 4,
    };
    const doc = parseXml(junitReport([seen]));
    expect(findAll(doc, 'error').map((e) => e.attrs.message)).toEqual(['task 12 lists 1 of its 5 items']);
  });
});

describe('junitReport: counts that say worse than the items', () => {
  it('adds one failing testcase naming both readings, so the report is not green', () => {
    const contradicted: Task = {
      ...base,
      id: 14,
      status: 'completed',
      total_items: 2,
      completed_items: 0,
      failed_items: 2,
      completed_at: '2026-11-21T10:00:03.500Z',
      items: [
        { target: 'a.com', status: 'completed', data: { available: true } },
        { target: 'b.com', status: 'completed', data: { available: true } },
      ],
    };
    const doc = parseXml(junitReport([contradicted]));
    const suite = findAll(doc, 'testsuite')[0]!;
    expect([suite.attrs.tests, suite.attrs.failures]).toEqual(['3', '1']);
    const failing = findAll(suite, 'testcase').find((c) => findAll(c, 'failure').length > 0)!;
    expect(failing.attrs.name).toBe('counts disagree with the items');
    expect(findAll(failing, 'failure')[0]!.attrs.message).toMatch(
      /^task 14: the service's counts disagree with its items: completed_items 0, failed_items 2, but its items show 2 completed, 0 failed; taken as 0\/2, 2 failed/,
    );
  });
});
