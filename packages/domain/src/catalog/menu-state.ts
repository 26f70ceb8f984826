/**
 * The menu state machine (spec 1 section 3, "Menus"). Pure: the use cases ask it whether an operation
 * is accepted from the menu's current state and what the next state is; a refusal carries the status
 * (409 for a state conflict, 422 for a menu that cannot be published as it is) and a stable `reason`.
 * The refusals are documented in docs/decisions.md.
 */
export const MENU_STATUSES = ['draft', 'published', 'archived'] as const;
export type MenuStatus = (typeof MENU_STATUSES)[number];

/**
 * - `publish`, `to_draft`, `archive`: the three state routes.
 * - `duplicate`: a copy (always a draft) is created.
 * - `edit`: any change to the menu or its structure (PUT, save display-group items, save or discard a
 *   draft, delete a display group, move or add an item).
 * - `discard_draft`: drop the pending display-group draft.
 * - `delete`: remove the menu.
 */
export type MenuOperation = 'publish' | 'to_draft' | 'archive' | 'duplicate' | 'edit' | 'discard_draft' | 'delete';

export type MenuRefusalReason =
  | 'menu_archived'
  | 'menu_empty'
  | 'menu_already_draft'
  | 'menu_already_archived'
  | 'menu_published'
  | 'menu_no_draft';

export interface MenuFacts {
  readonly status: MenuStatus;
  /** True while a display-group draft is pending. */
  readonly hasDraft: boolean;
  /** Items the menu would show once published (the draft's when one is pending, else the saved structure's). */
  readonly publishableItems: number;
}

export type MenuDecision =
  | { readonly kind: 'accepted'; readonly next: MenuStatus }
  | { readonly kind: 'refused'; readonly status: 409 | 422; readonly reason: MenuRefusalReason; readonly message: string };

export const MENU_REFUSALS: Readonly<Record<MenuRefusalReason, { status: 409 | 422; message: string }>> = {
  menu_archived: { status: 409, message: 'This menu is archived. Move it back to draft before changing or publishing it.' },
  menu_empty: { status: 422, message: 'A menu without items cannot be published.' },
  menu_already_draft: { status: 409, message: 'This menu is already a draft.' },
  menu_already_archived: { status: 409, message: 'This menu is already archived.' },
  menu_published: { status: 409, message: 'A published menu cannot be deleted. Archive it or move it back to draft first.' },
  menu_no_draft: { status: 409, message: 'This menu has no draft to discard.' },
};

const refuse = (reason: MenuRefusalReason): MenuDecision => ({ kind: 'refused', reason, ...MENU_REFUSALS[reason] });
const accept = (next: MenuStatus): MenuDecision => ({ kind: 'accepted', next });

/** Decides one operation on a menu. Exhaustive over operations and states. */
export function menuTransition(menu: MenuFacts, op: MenuOperation): MenuDecision {
  const archived = menu.status === 'archived';
  switch (op) {
    case 'publish':
      if (archived) return refuse('menu_archived');
      if (menu.publishableItems <= 0) return refuse('menu_empty');
      return accept('published');
    case 'to_draft':
      if (menu.status === 'draft') return refuse('menu_already_draft');
      return accept('draft');
    case 'archive':
      if (archived) return refuse('menu_already_archived');
      return accept('archived');
    case 'duplicate':
      // The copy is a draft; the original keeps its state.
      return accept(menu.status);
    case 'edit':
      if (archived) return refuse('menu_archived');
      return accept(menu.status);
    case 'discard_draft':
      if (archived) return refuse('menu_archived');
      if (!menu.hasDraft) return refuse('menu_no_draft');
      return accept(menu.status);
    case 'delete':
      if (menu.status === 'published') return refuse('menu_published');
      return accept(menu.status);
  }
}

/**
 * Display groups nest through `parent_id`. True when making `parentId` the parent of `groupId` would
 * close a cycle (a group its own ancestor), given every group's current parent.
 */
export function wouldCreateCycle(groupId: string, parentId: string | null, parentOf: ReadonlyMap<string, string | null>): boolean {
  const seen = new Set<string>();
  let cursor: string | null = parentId;
  while (cursor !== null) {
    if (cursor === groupId) return true;
    if (seen.has(cursor)) return true;
    seen.add(cursor);
    cursor = parentOf.get(cursor) ?? null;
  }
  return false;
}
