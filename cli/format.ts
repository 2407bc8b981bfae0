/**
 * Output: the table styles of python-tabulate that `alerta --output` accepts, JSON as the
 * established client prints it (sorted keys, indent 4), severity colours and local times.
 */

export interface Column<R> {
  header: string;
  value: (row: R) => unknown;
}

interface Line {
  begin: string;
  fill: string;
  sep: string;
  end: string;
}
interface RowShape {
  begin: string;
  sep: string;
  end: string;
}
interface Style {
  above?: Line;
  belowHeader?: Line;
  between?: Line;
  below?: Line;
  header: RowShape;
  row: RowShape;
  /** Spaces on each side of a cell. */
  pad: number;
  /** Lines left out when there is a header row (tabulate's with_header_hide). */
  hideWithHeader?: ('above' | 'below')[];
  /** pipe: mark each column's alignment with ':' in the header rule. */
  colons?: boolean;
  center?: boolean;
}

const line = (begin: string, fill: string, sep: string, end: string): Line => ({ begin, fill, sep, end });
const shape = (begin: string, sep: string, end: string): RowShape => ({ begin, sep, end });
const pipes = shape('|', '|', '|');

const github: Style = {
  above: line('|', '-', '|', '|'),
  belowHeader: line('|', '-', '|', '|'),
  header: pipes,
  row: pipes,
  pad: 1,
  hideWithHeader: ['above'],
};

const STYLES: Record<string, Style> = {
  plain: { header: shape('', '  ', ''), row: shape('', '  ', ''), pad: 0 },
  simple: {
    above: line('', '-', '  ', ''),
    belowHeader: line('', '-', '  ', ''),
    below: line('', '-', '  ', ''),
    header: shape('', '  ', ''),
    row: shape('', '  ', ''),
    pad: 0,
    hideWithHeader: ['above', 'below'],
  },
  github,
  // tabulate's pipe is github's table with alignment colons in the rule under the header.
  pipe: { ...github, colons: true },
  grid: {
    above: line('+', '-', '+', '+'),
    belowHeader: line('+', '=', '+', '+'),
    between: line('+', '-', '+', '+'),
    below: line('+', '-', '+', '+'),
    header: pipes,
    row: pipes,
    pad: 1,
  },
  fancy_grid: {
    above: line('╒', '═', '╤', '╕'),
    belowHeader: line('╞', '═', '╪', '╡'),
    between: line('├', '─', '┼', '┤'),
    below: line('╘', '═', '╧', '╛'),
    header: shape('│', '│', '│'),
    row: shape('│', '│', '│'),
    pad: 1,
  },
  psql: {
    above: line('+', '-', '+', '+'),
    belowHeader: line('|', '-', '+', '|'),
    below: line('+', '-', '+', '+'),
    header: pipes,
    row: pipes,
    pad: 1,
  },
  pretty: {
    above: line('+', '-', '+', '+'),
    belowHeader: line('+', '-', '+', '+'),
    below: line('+', '-', '+', '+'),
    header: pipes,
    row: pipes,
    pad: 1,
    center: true,
  },
  orgtbl: { belowHeader: line('|', '-', '+', '|'), header: pipes, row: pipes, pad: 1 },
  jira: { header: shape('||', '||', '||'), row: pipes, pad: 1 },
  presto: {
    belowHeader: line('', '-', '+', ''),
    header: shape('', '|', ''),
    row: shape('', '|', ''),
    pad: 1,
  },
  rst: {
    above: line('', '=', '  ', ''),
    belowHeader: line('', '=', '  ', ''),
    below: line('', '=', '  ', ''),
    header: shape('', '  ', ''),
    row: shape('', '  ', ''),
    pad: 0,
  },
};

/** Output names that are not tables. */
export const JSON_LINES = new Set(['json_lines', 'jsonl', 'ndjson']);
export const TABLE_STYLES = [...Object.keys(STYLES), 'tsv', 'html'];

/** A table style name as given to --output; unknown ones fall back to `simple`, as in the established client. */
export const styleOf = (output: string) =>
  STYLES[output] || output === 'tsv' || output === 'html' ? output : 'simple';

/** One cell's text: nothing for null, lists joined by commas, objects as JSON, one line only. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(cellText).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v).replace(/\s*[\r\n]+\s*/g, ' ');
}

const isNumeric = (s: string) => /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s);
const width = (s: string) => [...s].length;
const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Renders rows as a table in one of the tabulate styles. Number-only columns are right-aligned.
 * `rowColor` paints whole data rows (severity colours); widths are measured without the colour.
 */
export function renderTable<R>(
  rows: readonly R[],
  columns: readonly Column<R>[],
  output: string,
  rowColor?: (row: R) => ((s: string) => string) | null,
): string {
  const style = styleOf(output);
  const headers = columns.map((c) => c.header);
  const cells = rows.map((r) => columns.map((c) => cellText(c.value(r))));
  if (style === 'tsv') {
    // Unpadded, so scripts can split on tabs.
    return [headers, ...cells].map((r) => r.map((c) => c.replace(/\t/g, ' ')).join('\t')).join('\n');
  }
  if (style === 'html') {
    const tr = (r: string[], tag: string) =>
      `<tr>${r.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
    return [
      '<table>',
      `<thead>\n${tr(headers, 'th')}\n</thead>`,
      `<tbody>\n${cells.map((r) => tr(r, 'td')).join('\n')}\n</tbody>`,
      '</table>',
    ].join('\n');
  }
  const s = STYLES[style]!;
  const right = columns.map(
    (_, i) => cells.length > 0 && cells.every((r) => r[i] === '' || isNumeric(r[i]!)),
  );
  const widths = columns.map((_, i) => Math.max(width(headers[i]!), ...cells.map((r) => width(r[i]!))));
  const align = (text: string, i: number) => {
    const gap = widths[i]! - width(text);
    if (s.center) {
      const left = Math.floor(gap / 2);
      return ' '.repeat(left) + text + ' '.repeat(gap - left);
    }
    return right[i] ? ' '.repeat(gap) + text : text + ' '.repeat(gap);
  };
  const pad = ' '.repeat(s.pad);
  const renderRow = (r: string[], sh: RowShape) =>
    (sh.begin + r.map((c, i) => pad + align(c, i) + pad).join(sh.sep) + sh.end).trimEnd();
  const renderLine = (l: Line, colons = false) =>
    l.begin +
    widths
      .map((w, i) => {
        const fill = l.fill.repeat(w + 2 * s.pad);
        if (!colons) return fill;
        return right[i] ? `${fill.slice(0, -1)}:` : `:${fill.slice(1)}`;
      })
      .join(l.sep) +
    l.end;

  const out: string[] = [];
  if (s.above && !s.hideWithHeader?.includes('above')) out.push(renderLine(s.above));
  out.push(renderRow(headers, s.header));
  if (s.belowHeader) out.push(renderLine(s.belowHeader, s.colons));
  rows.forEach((row, n) => {
    if (n > 0 && s.between) out.push(renderLine(s.between));
    const text = renderRow(cells[n]!, s.row);
    const paint = rowColor?.(row);
    out.push(paint ? paint(text) : text);
  });
  if (s.below && !s.hideWithHeader?.includes('below')) out.push(renderLine(s.below));
  return out.join('\n');
}

/** Key-sorted copy, so JSON output is stable (the established client prints with sort_keys). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** JSON as `alerta --output json` prints it: sorted keys, indent 4, non-ASCII kept. */
export const toJson = (v: unknown) => JSON.stringify(sortKeys(v), null, 4);
/** One JSON value per line (json_lines). */
export const toJsonLine = (v: unknown) => JSON.stringify(v);

// ---- colour -----------------------------------------------------------------------------------

const ANSI: Record<string, number> = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
};
/** Severity → terminal colour, as the established client colours its lines. */
const SEVERITY_COLOR: Record<string, string> = {
  security: 'blue',
  critical: 'red',
  major: 'magenta',
  minor: 'yellow',
  warning: 'blue',
  indeterminate: 'cyan',
  normal: 'green',
  ok: 'green',
  cleared: 'green',
};

export const colorize = (color: string) => (s: string) => `\x1b[${ANSI[color] ?? 37}m${s}\x1b[0m`;
/** The painter for a severity, or null when colour is off or the severity has none. */
export function severityPainter(severity: string, enabled: boolean): ((s: string) => string) | null {
  const c = SEVERITY_COLOR[severity];
  return enabled && c ? colorize(c) : null;
}

// ---- time -----------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone if the runtime knows it, else UTC: an unknown zone in the config should not stop every listing. */
export function safeTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: safeTimeZone(timezone),
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** An API time shown in the configured zone as `YYYY/MM/DD hh:mm:ss`; '' for none. */
export function localTime(iso: unknown, timezone: string): string {
  if (typeof iso !== 'string' && typeof iso !== 'number') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = Object.fromEntries(
    formatterFor(timezone)
      .formatToParts(d)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}/${p.month}/${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

// ---- durations ----------------------------------------------------------------------------
// The established client shows durations two ways, and each output keeps its own: a count with
// its unit where it formats the number itself (`3600s`, `4ms`), and Python's `str(timedelta)`
// where it prints a time difference (a heartbeat's age: `0:00:03`, `2 days, 1:02:03`).

/** Whole seconds as Python prints a timedelta: `H:MM:SS`, with `N day(s), ` in front past a day. */
export function timedelta(seconds: number): string {
  const negative = seconds < 0;
  let s = Math.floor(Math.abs(seconds));
  // Python keeps the seconds part positive and borrows a day: -1 s is "-1 day, 23:59:59".
  let days = Math.floor(s / 86_400);
  s -= days * 86_400;
  if (negative && s > 0) {
    days += 1;
    s = 86_400 - s;
  }
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  if (days === 0) return clock;
  const d = negative ? -days : days;
  return `${d} ${Math.abs(d) === 1 ? 'day' : 'days'}, ${clock}`;
}

/** An uptime in milliseconds as the `uptime` command shows it: `N days hh:mm`. */
export function uptimeText(ms: number): string {
  const mins = Math.floor(Math.max(0, ms) / 60_000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(mins / 1440)} days ${two(Math.floor((mins % 1440) / 60))}:${two(mins % 60)}`;
}
