import { describe, expect, test } from 'bun:test';
import type { Logger } from '@pos/kernel';
import { devLogDriver } from './driver.ts';
import { renderNotification } from './templates.ts';

/** A logger that keeps its lines. */
function captureLog(): Logger & { lines: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => void lines.push({ level, msg, fields });
  const log = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

const activation = () =>
  renderNotification({ channel: 'sms', to: '+32470123456', template: 'device-activation-code', data: { device_name: 'Leak kiosk', code: '8BEHS5ST' } });

describe('the dev-log notification driver', () => {
  test('in local and test it logs the rendered subject, as a developer reads an activation code there', async () => {
    for (const env of ['local', 'test'] as const) {
      const log = captureLog();
      await devLogDriver(log, env).send(activation());
      expect(log.lines).toEqual([
        { level: 'info', msg: 'notification sent', fields: { driver: 'dev-log', channel: 'sms', to: '+32470123456', template: 'device-activation-code', subject: 'Activation code for Leak kiosk: 8BEHS5ST' } },
      ]);
    }
  });

  test('outside local and test (or told no environment) it logs neither the rendered content nor the recipient', async () => {
    for (const env of ['production', undefined] as const) {
      const log = captureLog();
      await devLogDriver(log, env).send(activation());
      expect(log.lines).toEqual([{ level: 'info', msg: 'notification not sent (dev-log driver)', fields: { driver: 'dev-log', channel: 'sms', template: 'device-activation-code' } }]);
      const text = JSON.stringify(log.lines);
      expect(text).not.toContain('8BEHS5ST');
      expect(text).not.toContain('470123456');
    }
  });
});
