import { describe, expect, it } from 'vitest';
import { WebhookEventSchema } from '../../../src/api/schemas.js';
import type { Task } from '../../../src/api/schemas.js';
import { platformOf, toWebhookEvent } from '../../../src/api/task-event.js';
import { UNLISTED_ITEMS } from '../../../src/lib/task-state.js';
import { T0 } from '../../clock.js';

const NOW_ISO = new Date(T0).toISOString();
const base: Task = {
  id: 42,
  service: 'domain_check_availability',
  status: 'pending',
  total_items: 10,
  cost: 10,
  created_at: '2025-01-15T11:59:00.000Z',
  completed_at: null,
};

describe('toWebhookEvent', () => {
  it('has no event for pending or unknown states', () => {
    expect(toWebhookEvent(base, T0)).toBeUndefined();
    expect(toWebhookEvent({ ...base, status: 'queued' }, T0)).toBeUndefined();
  });

  it('processing: exactly the fields docs/openapi.json names, in order, with honest defaults', () => {
    const event = toWebhookEvent({ ...base, status: 'processing' }, T0);
    expect(event).toEqual({
      event: 'processing',
      timestamp: NOW_ISO,
      task: {
        id: 42,
        service: 'domain_check_availability',
        platform: 'domain',
        status: 'processing',
        total_items: 10,
        completed_items: 0,
        failed_items: 0,
        cost: 10,
        created_at: '2025-01-15T11:59:00.000Z',
        started_at: NOW_ISO,
      },
    });
    expect(Object.keys(event!.task)).toEqual([
      'id',
      'service',
      'platform',
      'status',
      'total_items',
      'completed_items',
      'failed_items',
      'cost',
      'created_at',
      'started_at',
    ]);
    expect(WebhookEventSchema.safeParse(event).success).toBe(true);
  });

  it('completed: counts from items when the API gave none, completed_at kept', () => {
    const task: Task = {
      ...base,
      status: 'completed',
      completed_at: '2025-01-15T11:59:30.000Z',
      items: [
        { target: 'a.com', status: 'completed', data: { available: true } },
        { target: 'b.com', status: 'failed', data: null },
      ],
      total_items: 2,
    };
    const event = toWebhookEvent(task, T0);
    expect(event?.event).toBe('completed');
    expect(event?.task).toEqual({
      id: 42,
      service: 'domain_check_availability',
      platform: 'domain',
      status: 'completed',
      total_items: 2,
      completed_items: 1,
      failed_items: 1,
      cost: 10,
      created_at: '2025-01-15T11:59:00.000Z',
      completed_at: '2025-01-15T11:59:30.000Z',
    });
    expect('items' in event!.task).toBe(false);
  });

  it('completed without any counts claims no completed item (nobody saw one; wait exits 11 for it)', () => {
    const event = toWebhookEvent({ ...base, status: 'completed', completed_at: null }, T0);
    expect(event?.task).toMatchObject({ completed_items: 0, failed_items: 0, completed_at: NOW_ISO });
  });

  it('reads the status as task-state does: COMPLETED is the completed event', () => {
    const event = toWebhookEvent({ ...base, status: 'COMPLETED', completed_items: 10, failed_items: 0 }, T0);
    expect(event).toMatchObject({ event: 'completed', task: { status: 'completed', completed_items: 10 } });
  });

  it('failed: error message and failed_at, counts from the server', () => {
    const event = toWebhookEvent(
      {
        ...base,
        status: 'failed',
        platform: 'custom',
        completed_items: 3,
        failed_items: 7,
        error_message: 'boom',
        failed_at: '2025-01-15T11:59:50.000Z',
      },
      T0,
    );
    expect(event).toEqual({
      event: 'failed',
      timestamp: NOW_ISO,
      task: {
        id: 42,
        service: 'domain_check_availability',
        platform: 'custom',
        status: 'failed',
        total_items: 10,
        completed_items: 3,
        failed_items: 7,
        cost: 10,
        error_message: 'boom',
        created_at: '2025-01-15T11:59:00.000Z',
        failed_at: '2025-01-15T11:59:50.000Z',
      },
    });
    const bare = toWebhookEvent({ ...base, status: 'failed' }, T0);
    expect(bare?.task).toMatchObject({ completed_items: 0, failed_items: 10, failed_at: NOW_ISO });
    expect(WebhookEventSchema.safeParse(bare).success).toBe(true);
  });

  it('derives the platform from the service name', () => {
    expect(platformOf('domain_whois_history')).toBe('domain');
    expect(platformOf('fanpage_extract_contact')).toBe('facebook');
    expect(platformOf('email_verify')).toBe('email');
    expect(platformOf('plain')).toBe('plain');
  });
});

describe('toWebhookEvent: items a completed task does not list', () => {
  it('counts them in failed_items (the event has no "not listed" field, and not seen is not a success)', () => {
    const task: Task = {
      ...base,
      status: 'completed',
      total_items: 5,
      completed_at: '2025-01-15T12:00:00.000Z',
      items: [{ target: 'a.com', status: 'completed', data: null }],
    };
    const event = toWebhookEvent(task, T0);
    expect(event!.task).toMatchObject({ total_items: 5, completed_items: 1, failed_items: 4 });
  });

  it('also when only counts were read (watch carries the unlisted count beside them)', () => {
    const task = Object.assign(
      { ...base, status: 'completed', total_items: 5, completed_items: 1, failed_items: 0 },
      { [UNLISTED_ITEMS]: 4 },
    );
    expect(toWebhookEvent(task, T0)!.task).toMatchObject({ completed_items: 1, failed_items: 4 });
  });
});
