import { describe, expect, test } from 'bun:test';
import { layoutGridErrors, TILE_OUTSIDE, TILE_OVERLAPS } from './layout-grid.ts';

const tile = (row: number, column: number, width = 1, height = 1) => ({ row, column, width, height });

describe('layoutGridErrors', () => {
  test('tiles that fill the grid exactly are accepted', () => {
    expect(layoutGridErrors({ columns: 3, rows: 2, pages: [{ tiles: [tile(0, 0, 2, 1), tile(0, 2, 1, 2), tile(1, 0), tile(1, 1)] }] })).toEqual([]);
  });

  test('a tile past the last column or row is refused on its own path', () => {
    expect(layoutGridErrors({ columns: 3, rows: 2, pages: [{ tiles: [tile(0, 2, 2, 1)] }, { tiles: [tile(0, 0), tile(1, 0, 1, 2)] }] })).toEqual([
      { field: 'pages.0.tiles.0', message: TILE_OUTSIDE },
      { field: 'pages.1.tiles.1', message: TILE_OUTSIDE },
    ]);
  });

  test('the later of two tiles sharing a cell is refused, naming the earlier; other pages are separate grids', () => {
    const page = { tiles: [tile(0, 0, 2, 2), tile(1, 1), tile(1, 2)] };
    expect(layoutGridErrors({ columns: 3, rows: 3, pages: [page, page] })).toEqual([
      { field: 'pages.0.tiles.1', message: TILE_OVERLAPS(0) },
      { field: 'pages.1.tiles.1', message: TILE_OVERLAPS(0) },
    ]);
  });

  test('a refused tile claims no cells', () => {
    expect(layoutGridErrors({ columns: 2, rows: 1, pages: [{ tiles: [tile(0, 0), tile(0, 0, 2, 1), tile(0, 1)] }] })).toEqual([{ field: 'pages.0.tiles.1', message: TILE_OVERLAPS(0) }]);
  });
});
