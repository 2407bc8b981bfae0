import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rowWindow, slotRow, slotRows } from '../../web/src/routes/alerts/row-window.ts';

test('the window covers the rows in sight and the overscan, and keeps its size while scrolling', () => {
  const rowHeight = 26;
  const viewport = 1000;
  const total = 10_000;
  const sizes = new Set<number>();
  for (let scrollTop = 0; scrollTop <= total * rowHeight - viewport; scrollTop += 37) {
    const w = rowWindow(scrollTop, viewport, rowHeight, total, 2, 8);
    sizes.add(w.size);
    const first = Math.floor(scrollTop / rowHeight);
    const last = Math.min(total - 1, Math.floor((scrollTop + viewport) / rowHeight));
    assert.ok(w.start <= Math.max(0, first - 2), `start ${w.start} at ${scrollTop}`);
    assert.ok(w.start + w.size - 1 >= Math.min(total - 1, last + 2), `end at ${scrollTop}`);
    assert.ok(w.start + w.size <= total);
  }
  assert.equal([...sizes], [Math.ceil(viewport / rowHeight) + 1 + 4 + 7]);
});

test('the window moves in steps: a scroll of a few rows changes nothing', () => {
  const at = (px: number) => rowWindow(px, 1000, 26, 10_000, 2, 8).start;
  assert.is(at(0), 0);
  assert.is(at(26 * 9), 0);
  assert.is(at(26 * 10), 8);
  assert.is(at(26 * 17), 8);
  assert.is(at(26 * 18), 16);
});

test('short lists and the end of the list', () => {
  assert.equal(rowWindow(0, 1000, 26, 0, 2, 8), { start: 0, size: 0 });
  assert.equal(rowWindow(500, 1000, 26, 5, 2, 8), { start: 0, size: 5 });
  const end = rowWindow(10_000 * 26, 1000, 26, 10_000, 2, 8);
  assert.is(end.start + end.size, 10_000);
});

test('each slot keeps its row while the window moves, and every row of the window has one slot', () => {
  const a = { start: 40, size: 52 };
  const b = { start: 48, size: 52 };
  const rowsA = slotRows(a);
  const rowsB = slotRows(b);
  assert.equal(
    [...rowsA].sort((x, y) => x - y),
    Array.from({ length: 52 }, (_, i) => 40 + i),
  );
  assert.equal(
    [...rowsB].sort((x, y) => x - y),
    Array.from({ length: 52 }, (_, i) => 48 + i),
  );
  // Moving by 8 rows hands exactly 8 slots a new row; the others keep theirs.
  assert.is(rowsA.filter((r, s) => rowsB[s] !== r).length, 8);
  for (let s = 0; s < 52; s++) assert.is(slotRow(a, s) % 52, s);
});

test.run();
