import { describe, expect, test } from 'bun:test';
import { MENU_STATUSES, menuTransition, wouldCreateCycle, type MenuOperation, type MenuStatus } from './menu-state.ts';

const OPS: MenuOperation[] = ['publish', 'to_draft', 'archive', 'duplicate', 'edit', 'discard_draft', 'delete'];

/** The full table: [status, hasDraft, items] x operation -> next state or refusal reason. */
const EXPECTED: Record<MenuStatus, Record<MenuOperation, string>> = {
  draft: { publish: 'published', to_draft: 'menu_already_draft', archive: 'archived', duplicate: 'draft', edit: 'draft', discard_draft: 'draft', delete: 'draft' },
  published: { publish: 'published', to_draft: 'draft', archive: 'archived', duplicate: 'published', edit: 'published', discard_draft: 'published', delete: 'menu_published' },
  archived: { publish: 'menu_archived', to_draft: 'draft', archive: 'menu_already_archived', duplicate: 'archived', edit: 'menu_archived', discard_draft: 'menu_archived', delete: 'archived' },
};

describe('menuTransition', () => {
  for (const status of MENU_STATUSES) {
    for (const op of OPS) {
      test(`${status} + ${op} (with a draft and items)`, () => {
        const d = menuTransition({ status, hasDraft: true, publishableItems: 3 }, op);
        expect<string>(d.kind === 'accepted' ? d.next : d.reason).toBe(EXPECTED[status][op]);
      });
    }
  }

  test('publishing an empty menu is a 422 menu_empty, from draft and from published', () => {
    for (const status of ['draft', 'published'] as const) {
      expect(menuTransition({ status, hasDraft: false, publishableItems: 0 }, 'publish')).toEqual({
        kind: 'refused',
        status: 422,
        reason: 'menu_empty',
        message: 'A menu without items cannot be published.',
      });
    }
  });

  test('an archived menu refuses publish with 409 before looking at its items', () => {
    expect(menuTransition({ status: 'archived', hasDraft: false, publishableItems: 0 }, 'publish')).toMatchObject({ status: 409, reason: 'menu_archived' });
  });

  test('discarding without a draft is a 409 menu_no_draft', () => {
    expect(menuTransition({ status: 'draft', hasDraft: false, publishableItems: 1 }, 'discard_draft')).toMatchObject({ kind: 'refused', status: 409, reason: 'menu_no_draft' });
    expect(menuTransition({ status: 'published', hasDraft: false, publishableItems: 1 }, 'discard_draft')).toMatchObject({ reason: 'menu_no_draft' });
  });

  test('state conflicts are 409', () => {
    expect(menuTransition({ status: 'published', hasDraft: false, publishableItems: 1 }, 'delete')).toMatchObject({ status: 409 });
    expect(menuTransition({ status: 'draft', hasDraft: false, publishableItems: 1 }, 'to_draft')).toMatchObject({ status: 409 });
  });
});

describe('wouldCreateCycle', () => {
  const parents = new Map<string, string | null>([
    ['a', null],
    ['b', 'a'],
    ['c', 'b'],
    ['d', null],
  ]);
  test('a group cannot be its own parent or the child of its descendant', () => {
    expect(wouldCreateCycle('a', 'a', parents)).toBe(true);
    expect(wouldCreateCycle('a', 'c', parents)).toBe(true);
    expect(wouldCreateCycle('b', 'c', parents)).toBe(true);
  });
  test('other parents are fine', () => {
    expect(wouldCreateCycle('c', 'a', parents)).toBe(false);
    expect(wouldCreateCycle('a', 'd', parents)).toBe(false);
    expect(wouldCreateCycle('a', null, parents)).toBe(false);
  });
  test('an existing loop in the data ends the walk', () => {
    const loop = new Map<string, string | null>([
      ['x', 'y'],
      ['y', 'x'],
    ]);
    expect(wouldCreateCycle('z', 'x', loop)).toBe(true);
  });
});
