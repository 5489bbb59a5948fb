import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/api/schemas.js';
import {
  escapeData,
  escapeProperty,
  githubAnnotations,
  githubSummary,
  markdownCell,
} from '../../../src/report/github.js';
import { UNLISTED_ITEMS } from '../../../src/lib/task-state.js';

function task(id: number, status: string, items: Array<[string, string, string?]>, extra: Partial<Task> = {}): Task {
  return {
    id,
    service: 'domain_check_availability',
    status,
    total_items: items.length,
    cost: items.length,
    created_at: '2026-11-21T10:00:00Z',
    items: items.map(([target, itemStatus, error]) => ({
      target,
      status: itemStatus,
      data: null,
      ...(error ? { error } : {}),
    })),
    ...extra,
  };
}

const tableRows = (markdown: string) => markdown.split('\n').filter((line) => /^\| \d+ \|/.test(line));

describe('githubSummary', () => {
  it('has one table row per task: id, service, status, items, completed, failed, cost', () => {
    const tasks = [
      task(1, 'completed', [
        ['a.com', 'completed'],
        ['fail-b.com', 'failed', 'boom'],
      ]),
      task(2, 'failed', [['c.com', 'failed', 'nope']], { error_message: 'task broke' }),
      task(3, 'completed', [['d.com', 'completed']]),
    ];
    const markdown = githubSummary(tasks);
    const rows = tableRows(markdown);
    expect(rows).toHaveLength(3);
    // Completed with a failed item: the one vocabulary's `partial` (yellow on a terminal), never ✅.
    expect(rows[0]).toBe('| 1 | domain_check_availability | ⚠️ completed | 2 | 1 | 1 | 2 |');
    expect(rows[1]).toBe('| 2 | domain_check_availability | ❌ failed | 1 | 0 | 1 | 1 |');
    expect(rows[2]).toBe('| 3 | domain_check_availability | ✅ completed | 1 | 1 | 0 | 1 |');
    expect(markdown).toContain('| task | service | status | items | completed | failed | cost |');
    expect(markdown).toMatch(/^### taskctl: 3 tasks, 1 failed task, 2 failed items/);
    expect(markdown).toContain('- task 1 · fail-b.com: boom');
    expect(markdown).toContain('- task 2 failed: task broke');
  });

  it('uses the task counters when items are not there', () => {
    const bare: Task = {
      ...task(4, 'processing', []),
      total_items: 10,
      items: undefined,
      completed_items: 3,
      failed_items: 1,
    };
    expect(tableRows(githubSummary([bare]))).toEqual([
      '| 4 | domain_check_availability | ⏳ processing | 10 | 3 | 1 | 0 |',
    ]);
  });

  it('counts the items a completed task does not list as failed, in the heading and the row', () => {
    const partial: Task = { ...task(6, 'completed', [['a.com', 'completed']]), total_items: 5 };
    const summary = githubSummary([partial]);
    expect(summary).toContain('### taskctl: 1 task, 0 failed tasks, 4 failed items');
    expect(tableRows(summary)).toEqual(['| 6 | domain_check_availability | ⚠️ completed | 5 | 1 | 4 | 1 |']);
  });

  it('marks a completed task without counts with nothing: no evidence either way', () => {
    const bare: Task = { ...task(5, 'completed', []), total_items: 2, items: undefined };
    expect(tableRows(githubSummary([bare]))).toEqual(['| 5 | domain_check_availability | completed | 2 |  |  | 0 |']);
  });

  it('keeps server text inside its cell', () => {
    expect(markdownCell('a|b\nc<script>\u001b[31m')).toBe('a\\|b c&lt;script&gt;[31m');
  });
});

describe('githubAnnotations', () => {
  it('annotates failed tasks first, then failed items, as ::error workflow commands', () => {
    const lines = githubAnnotations([
      task(1, 'completed', [
        ['a.com', 'completed'],
        ['fail-b.com', 'failed', 'boom'],
      ]),
      task(2, 'failed', [], { error_message: 'task broke' }),
    ]);
    expect(lines).toEqual([
      '::error title=taskctl%3A task 2 failed (domain_check_availability)::task broke. See: taskctl show 2',
      '::error title=taskctl%3A task 1 item failed (domain_check_availability)::fail-b.com: boom',
    ]);
  });

  it('stops at the limit and says how many more there are and where to see them', () => {
    const items = Array.from({ length: 25 }, (_, i): [string, string, string] => [`fail-${i}.com`, 'failed', 'x']);
    const lines = githubAnnotations([task(7, 'completed', items)], 10);
    expect(lines.filter((line) => line.startsWith('::error '))).toHaveLength(10);
    expect(lines).toHaveLength(11);
    expect(lines[10]).toMatch(
      /^::warning title=taskctl%3A more failures::15 failed items not annotated .*taskctl show 7 --items-status failed$/,
    );
  });

  it('says "1 failed item" in the overflow warning (not "1 failed items")', () => {
    const items = Array.from({ length: 3 }, (_, i): [string, string, string] => [`fail-${i}.com`, 'failed', 'x']);
    const lines = githubAnnotations([task(7, 'completed', items)], 2);
    expect(lines[2]).toMatch(/::1 failed item not annotated \(GitHub shows 2 error annotations per step\)/);
  });

  it('after a one-off --sandbox run, names no taskctl show command (that sandbox is gone)', () => {
    const items = Array.from({ length: 4 }, (_, i): [string, string, string] => [`fail-${i}.com`, 'failed', 'x']);
    const tasks = [task(2, 'failed', [], { error_message: 'task broke' }), task(7, 'completed', items)];
    const lines = githubAnnotations(tasks, 2, { ephemeral: true });
    expect(lines[0]).toBe('::error title=taskctl%3A task 2 failed (domain_check_availability)::task broke');
    expect(lines[2]).toMatch(/::3 failed items not annotated \(GitHub shows 2 error annotations per step\)$/);
    expect(lines.join('\n')).not.toMatch(/taskctl show/);
    const many = Array.from({ length: 60 }, (_, i): [string, string, string] => [`fail-${i}.com`, 'failed', 'x']);
    const markdown = githubSummary([task(8, 'completed', many)], { ephemeral: true });
    expect(markdown).toContain('- … and 10 more\n');
    expect(markdown).not.toMatch(/taskctl show/);
  });

  it('escapes data and properties so server text cannot inject workflow commands', () => {
    expect(escapeData('50% done\r\n::set-env name=X::1')).toBe('50%25 done%0D%0A::set-env name=X::1');
    expect(escapeProperty('a:b,c')).toBe('a%3Ab%2Cc');
    // A tab is a space between two words, never dropped to join them; other controls go.
    expect(escapeProperty('timed\tout\u0007')).toBe('timed out');
    expect(escapeData('timed\tout')).toBe('timed out');
    const [line] = githubAnnotations([task(1, 'completed', [['x.com', 'failed', 'line1\n::error::forged']])]);
    expect(line!.split('\n')).toHaveLength(1);
  });

  it('is empty when nothing failed', () => {
    expect(githubAnnotations([task(1, 'completed', [['a.com', 'completed']])])).toEqual([]);
  });

  it('annotates items that did not complete whatever their status, and tasks that ended under another word', () => {
    const lines = githubAnnotations([
      task(1, 'completed', [
        ['a.com', 'completed'],
        ['b.com', 'error'],
        ['c.com', 'skipped'],
      ]),
      task(2, 'cancelled', []),
    ]);
    expect(lines).toEqual([
      '::error title=taskctl%3A task 2 cancelled (domain_check_availability)::no reason given. See: taskctl show 2',
      '::error title=taskctl%3A task 1 item error (domain_check_availability)::b.com: item error',
      '::error title=taskctl%3A task 1 item skipped (domain_check_availability)::c.com: item skipped',
    ]);
  });
});

describe('githubAnnotations: items a finished task does not list', () => {
  const partial = (id: number, status = 'completed', extra: Partial<Task> = {}): Task => ({
    ...task(id, status, [['a.com', 'completed']]),
    total_items: 5,
    ...extra,
  });

  it('a completed task whose only problem is items it does not list: one ::error naming the task and how many', () => {
    expect(githubAnnotations([partial(6)])).toEqual([
      '::error title=taskctl%3A task 6 has 4 items not listed (domain_check_availability)::task 6 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed. See: taskctl show 6 -o json',
    ]);
  });

  it('one item: singular words', () => {
    const [line] = githubAnnotations([{ ...partial(6), total_items: 2 }]);
    expect(line).toMatch(
      /title=taskctl%3A task 6 has 1 item not listed .*::task 6 lists 1 of its 2 items; the 1 not listed was never seen, so it counts as failed/,
    );
  });

  it('after the failed tasks, before the failed items; a failed task with items it does not list gets both, as in JUnit', () => {
    const lines = githubAnnotations([
      task(1, 'completed', [['fail-b.com', 'failed', 'boom']]),
      partial(6),
      partial(2, 'failed', { error_message: 'task broke' }),
    ]);
    expect(lines.map((line) => /title=([^:]*)::/.exec(line)?.[1])).toEqual([
      'taskctl%3A task 2 failed (domain_check_availability)',
      'taskctl%3A task 6 has 4 items not listed (domain_check_availability)',
      'taskctl%3A task 2 has 4 items not listed (domain_check_availability)',
      'taskctl%3A task 1 item failed (domain_check_availability)',
    ]);
  });

  it('past the limit, the overflow warning counts them apart from failed tasks and items', () => {
    const items = Array.from({ length: 3 }, (_, i): [string, string, string] => [`fail-${i}.com`, 'failed', 'x']);
    const lines = githubAnnotations([partial(6), partial(8), task(7, 'completed', items)], 1);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/task 6 has 4 items not listed/);
    expect(lines[1]).toMatch(
      /^::warning title=taskctl%3A more failures::1 task with items not listed and 3 failed items not annotated \(GitHub shows 1 error annotations per step\)\. See: taskctl show 8 -o json; taskctl show 7 --items-status failed$/,
    );
  });

  it('a task as a wait last saw it (its items not kept, their count kept): what it listed, from that count', () => {
    const seen: Task = { ...partial(6), items: undefined, completed_items: 1, failed_items: 0, [UNLISTED_ITEMS]: 4 };
    expect(githubAnnotations([seen])[0]).toMatch(/task 6 has 4 items not listed .*::task 6 lists 1 of its 5 items; /);
  });

  it('a running task, or one that lists every item, gets none', () => {
    const running = { ...partial(6, 'processing') };
    expect(githubAnnotations([running, task(3, 'completed', [['a.com', 'completed']])])).toEqual([]);
  });

  it('after a one-off --sandbox run: no taskctl show command', () => {
    expect(githubAnnotations([partial(6)], 10, { ephemeral: true })).toEqual([
      '::error title=taskctl%3A task 6 has 4 items not listed (domain_check_availability)::task 6 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed',
    ]);
  });
});

describe('githubSummary: items a finished task does not list', () => {
  it('the Failures list names them, as the heading counts them', () => {
    const partial: Task = { ...task(6, 'completed', [['a.com', 'completed']]), total_items: 5 };
    expect(githubSummary([partial])).toContain('- task 6 · 4 items not listed: task 6 lists 1 of its 5 items');
  });
});

describe('githubSummary: the shared counting rule', () => {
  it('counts error and skipped items as failed and cancelled tasks as failed tasks', () => {
    const markdown = githubSummary([
      task(1, 'completed', [
        ['a.com', 'completed'],
        ['b.com', 'error'],
        ['c.com', 'skipped'],
      ]),
      task(2, 'cancelled', [['d.com', 'pending']]),
    ]);
    expect(markdown).toMatch(/^### taskctl: 2 tasks, 1 failed task, 3 failed items/);
    const rows = tableRows(markdown);
    expect(rows[0]).toBe('| 1 | domain_check_availability | ⚠️ completed | 3 | 1 | 2 | 3 |');
    expect(rows[1]).toBe('| 2 | domain_check_availability | ❌ cancelled | 1 | 0 | 1 | 1 |');
    expect(markdown).toContain('- task 1 · b.com: item error');
    expect(markdown).toContain('- task 2 cancelled: no reason given');
  });
});

describe('github report: counts that say worse than the items', () => {
  // All three items completed, but the service's own counts say 2 failed.
  const contradicted = task(
    4,
    'completed',
    [
      ['a.com', 'completed'],
      ['b.com', 'completed'],
      ['c.com', 'completed'],
    ],
    { completed_items: 1, failed_items: 2 },
  );

  it('counts the worse reading and names the contradiction among the failures and as an annotation', () => {
    const markdown = githubSummary([contradicted]);
    expect(markdown).toMatch(/^### taskctl: 1 task, 0 failed tasks, 2 failed items/);
    expect(tableRows(markdown)[0]).toBe('| 4 | domain_check_availability | ⚠️ completed | 3 | 1 | 2 | 3 |');
    expect(markdown).toContain(
      "- task 4: the service's counts disagree with its items: completed_items 1, failed_items 2",
    );
    const annotations = githubAnnotations([contradicted]);
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(
      /^::error title=taskctl%3A task 4 counts disagree \(domain_check_availability\)::task 4: the service's counts disagree/,
    );
  });

  it('past the limit, the overflow warning counts them apart and names where to look', () => {
    const lines = githubAnnotations([task(9, 'failed', [], { error_message: 'broke' }), contradicted], 1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^::warning title=taskctl%3A more failures::1 task whose counts disagree not annotated \(GitHub shows 1 error annotations per step\)\. See: taskctl show 4 -o json$/,
    );
  });
});

describe('githubAnnotations: every kind past the limit at once', () => {
  const failedItems = (id: number, count: number) =>
    task(
      id,
      'completed',
      Array.from({ length: count }, (_, i): [string, string, string] => [`fail-${id}-${i}.com`, 'failed', 'x']),
    );
  const unlisted = (id: number): Task => ({ ...task(id, 'completed', [['a.com', 'completed']]), total_items: 5 });
  const contradicted = task(4, 'completed', [['a.com', 'completed']], { completed_items: 0, failed_items: 1 });
  // Given out of kind order: the annotations go by kind (failed tasks, items not listed, counts that disagree, failed
  // items), each kind in the tasks' order.
  const tasks = [
    failedItems(7, 3),
    unlisted(6),
    task(2, 'failed', [], { error_message: 'broke a' }),
    contradicted,
    unlisted(8),
    task(3, 'failed', [], { error_message: 'broke b' }),
    failedItems(9, 2),
  ];

  it('a limit inside the failed tasks: one warning counting each kind, naming where to look but for failed tasks', () => {
    expect(githubAnnotations(tasks, 1)).toEqual([
      '::error title=taskctl%3A task 2 failed (domain_check_availability)::broke a. See: taskctl show 2',
      '::warning title=taskctl%3A more failures::1 failed task and 2 tasks with items not listed and 1 task whose counts disagree and 5 failed items not annotated (GitHub shows 1 error annotations per step). See: taskctl show 6 -o json; taskctl show 8 -o json; taskctl show 4 -o json; taskctl show 7 --items-status failed; taskctl show 9 --items-status failed',
    ]);
  });

  it('a limit inside the items not listed, then inside the failed items', () => {
    expect(githubAnnotations(tasks, 3)).toEqual([
      '::error title=taskctl%3A task 2 failed (domain_check_availability)::broke a. See: taskctl show 2',
      '::error title=taskctl%3A task 3 failed (domain_check_availability)::broke b. See: taskctl show 3',
      '::error title=taskctl%3A task 6 has 4 items not listed (domain_check_availability)::task 6 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed. See: taskctl show 6 -o json',
      '::warning title=taskctl%3A more failures::1 task with items not listed and 1 task whose counts disagree and 5 failed items not annotated (GitHub shows 3 error annotations per step). See: taskctl show 8 -o json; taskctl show 4 -o json; taskctl show 7 --items-status failed; taskctl show 9 --items-status failed',
    ]);
    expect(githubAnnotations(tasks, 7)).toEqual([
      '::error title=taskctl%3A task 2 failed (domain_check_availability)::broke a. See: taskctl show 2',
      '::error title=taskctl%3A task 3 failed (domain_check_availability)::broke b. See: taskctl show 3',
      '::error title=taskctl%3A task 6 has 4 items not listed (domain_check_availability)::task 6 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed. See: taskctl show 6 -o json',
      '::error title=taskctl%3A task 8 has 4 items not listed (domain_check_availability)::task 8 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed. See: taskctl show 8 -o json',
      "::error title=taskctl%3A task 4 counts disagree (domain_check_availability)::task 4: the service's counts disagree with its items: completed_items 0, failed_items 1, but its items show 1 completed, 0 failed; taken as 0/1, 1 failed (a success only if both say so). See: taskctl show 4 -o json",
      '::error title=taskctl%3A task 7 item failed (domain_check_availability)::fail-7-0.com: x',
      '::error title=taskctl%3A task 7 item failed (domain_check_availability)::fail-7-1.com: x',
      '::warning title=taskctl%3A more failures::3 failed items not annotated (GitHub shows 7 error annotations per step). See: taskctl show 7 --items-status failed; taskctl show 9 --items-status failed',
    ]);
  });
});
