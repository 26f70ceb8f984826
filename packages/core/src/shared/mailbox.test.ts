import { describe, expect, test } from 'bun:test';
import { mailboxKey } from './mailbox.ts';

describe('mailboxKey', () => {
  test('one inbox, one key: case, spaces, sub-addresses and Gmail dots', () => {
    const k = mailboxKey('victim@example.com');
    for (const same of [' Victim@Example.COM ', 'victim+1@example.com', 'victim+a+b@example.com']) expect(mailboxKey(same)).toBe(k);
    const g = mailboxKey('victim@gmail.com');
    for (const same of ['v.i.c.t.i.m@gmail.com', 'Victim+news@googlemail.com', 'vic.tim+2@GMAIL.com']) expect(mailboxKey(same)).toBe(g);
  });

  test('different inboxes stay apart; a leading plus or a value without @ is kept whole', () => {
    expect(mailboxKey('victim@example.com')).not.toBe(mailboxKey('victim@example.org'));
    expect(mailboxKey('v.ictim@example.com')).not.toBe(mailboxKey('victim@example.com'));
    expect(mailboxKey('+tag@example.com')).not.toBe(mailboxKey('@example.com'));
    expect(mailboxKey('+32470000000')).not.toBe(mailboxKey('+32470000001'));
    expect(mailboxKey('victim@example.com')).toMatch(/^[0-9a-f]{64}$/);
  });
});
