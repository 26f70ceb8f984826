import type { FieldError } from '../field-error.ts';

/**
 * A register screen layout (spec 2, `/back-office/pos/{locationId}/layouts`): pages of a grid of
 * `columns` x `rows` cells, each page holding tiles that cover whole cells. The rules here are pure:
 * every tile inside the grid and no two tiles of a page on the same cell. Whether a tile's item or
 * category exists is the use case's check (a database read).
 */
export const MAX_GRID = 12;
export const MAX_PAGES = 20;

export interface LayoutTile {
  readonly row: number;
  readonly column: number;
  readonly width: number;
  readonly height: number;
}

export interface LayoutGrid<T extends LayoutTile = LayoutTile> {
  readonly columns: number;
  readonly rows: number;
  readonly pages: readonly { readonly tiles: readonly T[] }[];
}

export const TILE_OUTSIDE = 'The tile does not fit inside the grid.';
export const TILE_OVERLAPS = (other: number) => `The tile covers a cell of tile ${other} on the same page.`;

/** The tiles that leave the grid or cover a cell another tile of their page covers (the later one is refused), as field errors `pages.P.tiles.T`. */
export function layoutGridErrors(layout: LayoutGrid): FieldError[] {
  const problems: FieldError[] = [];
  layout.pages.forEach((page, p) => {
    const owner = new Map<number, number>();
    page.tiles.forEach((tile, t) => {
      const field = `pages.${p}.tiles.${t}`;
      if (tile.column + tile.width > layout.columns || tile.row + tile.height > layout.rows) {
        problems.push({ field, message: TILE_OUTSIDE });
        return;
      }
      for (let r = tile.row; r < tile.row + tile.height; r++) {
        for (let c = tile.column; c < tile.column + tile.width; c++) {
          const cell = r * layout.columns + c;
          const other = owner.get(cell);
          if (other !== undefined) {
            problems.push({ field, message: TILE_OVERLAPS(other) });
            return;
          }
        }
      }
      for (let r = tile.row; r < tile.row + tile.height; r++) for (let c = tile.column; c < tile.column + tile.width; c++) owner.set(r * layout.columns + c, t);
    });
  });
  return problems;
}
