import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { findJob, fiscalRecoverJob, heartbeatJob, JOB_QUEUES, jobMessage, JOBS, notificationSendJob, QUEUES } from './index.ts';

describe('job registry', () => {
  test('every job has a unique name, a known queue and a version', () => {
    const names = JOBS.map((j) => j.name);
    expect(new Set(names).size).toBe(names.length);
    for (const j of JOBS) {
      expect(Object.values(QUEUES)).toContain(j.queue);
      expect(j.version).toBeGreaterThanOrEqual(1);
      expect(findJob(j.name)).toBe(j);
    }
    expect([...JOB_QUEUES].sort()).toEqual(['notifications', 'payments', 'payments-high', 'payments-medium', 'system']);
    expect(findJob('nope')).toBeUndefined();
  });

  test('heartbeat payload', () => {
    expect(Value.Check(heartbeatJob.payload, { service: 'worker', at: '2026-11-21T05:00:00.000Z' })).toBe(true);
    expect(Value.Check(heartbeatJob.payload, { service: 'worker', at: 'now' })).toBe(false);
    expect(Value.Check(heartbeatJob.payload, { service: 'worker', at: '2026-11-21T05:00:00Z', extra: 1 })).toBe(false);
  });

  test('notification.send payload', () => {
    const ok = { channel: 'email', to: 'a@example.test', template: 'activation_code', data: { code: '123456' } };
    expect(Value.Check(notificationSendJob.payload, ok)).toBe(true);
    expect(Value.Check(notificationSendJob.payload, { ...ok, channel: 'fax' })).toBe(false);
    expect(Value.Check(notificationSendJob.payload, { ...ok, data: undefined })).toBe(false);
  });

  test('fiscal.recover: registered on the system queue, never retried; payload optional tenant and time', () => {
    expect(findJob('fiscal.recover')).toBe(fiscalRecoverJob);
    expect(fiscalRecoverJob).toMatchObject({ queue: QUEUES.system, version: 1, retries: 0 });
    expect(Value.Check(fiscalRecoverJob.payload, {})).toBe(true);
    expect(Value.Check(fiscalRecoverJob.payload, { tenant_database: 't_abc_123', at: '2026-11-21T05:00:00.000Z' })).toBe(true);
    expect(Value.Check(fiscalRecoverJob.payload, { tenant_database: 'public' })).toBe(false);
    expect(Value.Check(fiscalRecoverJob.payload, { at: 'now' })).toBe(false);
  });

  test('jobMessage builds the outbox row and refuses a bad payload', () => {
    expect(jobMessage(notificationSendJob, { channel: 'sms', to: '+32470000000', template: 'activation_code', data: {} })).toEqual({
      queue: 'notifications',
      job: 'notification.send',
      payload: { channel: 'sms', to: '+32470000000', template: 'activation_code', data: {} },
    });
    expect(() => jobMessage(heartbeatJob, { service: 'x', at: 'soon' })).toThrow(/Invalid payload for job heartbeat: \/at/);
  });
});
