/**
 * The console's row pool (AlertTable.svelte): a fixed number of row elements, each showing the
 * alert at its own offset, recycled as the list scrolls instead of being created and destroyed.
 * Slot `s` always shows the one row index `i` of the window with `i % size === s`, so a scroll of
 * one row gives one slot a new alert and leaves the others (and the DOM's structure) alone.
 */

export interface RowWindow {
  /** The first row index in the window. */
  start: number;
  /** How many rows the window (and the pool) holds: the same wherever the list is scrolled. */
  size: number;
}

/**
 * The rows to keep in the DOM: those in sight plus at least `overscan` above and below, as a
 * window of constant size (so the pool neither grows nor shrinks while scrolling) clamped to the
 * list. The window moves in steps of `step` rows: most frames of a scroll then change nothing at
 * all, and each step hands `step` rows new alerts at once.
 */
export function rowWindow(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  total: number,
  overscan: number,
  step = 1,
): RowWindow {
  if (total <= 0 || rowHeight <= 0) return { start: 0, size: 0 };
  const inSight = Math.ceil(Math.max(0, viewport) / rowHeight) + 1;
  const size = Math.min(total, inSight + 2 * overscan + step - 1);
  const top = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const aligned = Math.floor(Math.max(0, top - overscan) / step) * step;
  const start = Math.max(0, Math.min(aligned, total - size));
  return { start, size };
}

/** The row index slot `s` shows: the window's one index `i` with `i % size === s`. */
export function slotRow({ start, size }: RowWindow, s: number): number {
  return start + ((((s - start) % size) + size) % size);
}

/** Every slot's row index, by slot (the order the row elements keep in the DOM). */
export function slotRows(w: RowWindow): number[] {
  return Array.from({ length: w.size }, (_, s) => slotRow(w, s));
}
