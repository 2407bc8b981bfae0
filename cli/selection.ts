import type { Alert } from '../shared/alerts.ts';
import { splitPair, UsageError, type OptionSpec, type Values } from './args.ts';
import type { Http } from './http.ts';

/** `-i`, `-q`, `-f`: how alert commands pick alerts (clients.md §3.3). */
export function selectOptions(idsName = 'ids', idsFlag = '--ids'): OptionSpec[] {
  return [
    {
      name: idsName,
      flags: ['-i', idsFlag],
      multiple: true,
      metavar: 'ID',
      help: 'Alert id (a short 8-character id will do); repeat for more.',
    },
    {
      name: 'query',
      flags: ['-q', '--query'],
      metavar: 'QUERY',
      help: 'Lucene query, e.g. severity:"warning" AND resource:web',
    },
    {
      name: 'filters',
      flags: ['-f', '--filter'],
      multiple: true,
      metavar: 'KEY=VALUE',
      help: 'Filter, e.g. severity=warning, resource=~web, environment!=Development; repeat for more.',
    },
  ];
}

export interface Selection {
  params: [string, string][];
  /** False when nothing was given: every alert the caller may see. */
  given: boolean;
  byIds: boolean;
}

/** Query parameters for a selection: ids win over a query, which wins over filters (as before). */
export function selectionOf(o: Values, idsName = 'ids'): Selection {
  const ids = (o[idsName] as string[] | undefined) ?? [];
  if (ids.length) return { params: ids.map((id) => ['id', id]), given: true, byIds: true };
  if (typeof o.query === 'string' && o.query) return { params: [['q', o.query]], given: true, byIds: false };
  const filters = (o.filters as string[] | undefined) ?? [];
  const params = filters.map((f) => {
    const pair = splitPair(f);
    if (!pair) throw new UsageError(`Invalid filter "${f}": expected KEY=VALUE`);
    return pair;
  });
  return { params, given: params.length > 0, byIds: false };
}

const pageOf = (page: number): [string, string][] => [
  ['page', String(page)],
  ['page-size', '1000'],
];

/**
 * GET `path` for the selection in `o`, `extra` parameters added: the first page, as large as the
 * server gives, for the commands that show a selection once (query, raw, history).
 */
export function firstPage<T>(
  http: Http,
  path: string,
  o: Values,
  extra: [string, string][] = [],
): Promise<T> {
  return http.get<T>(path, [...selectionOf(o).params, ...extra, ...pageOf(1)]);
}

/** Every alert of a selection, page by page (no silent cut at the first page). */
async function allAlerts(http: Http, params: [string, string][]): Promise<Alert[]> {
  const alerts: Alert[] = [];
  for (let page = 1; ; page++) {
    const r = await http.get<{ alerts: Alert[]; more?: boolean; pages?: number }>('/alerts', [
      ...params,
      ...pageOf(page),
    ]);
    alerts.push(...r.alerts);
    const more = r.more ?? (r.pages !== undefined && page < r.pages);
    if (!more || r.alerts.length === 0) return alerts;
  }
}

/** The ids a selection names: as given with -i, else those of every alert it matches. */
export async function idsOf(http: Http, sel: Selection): Promise<string[]> {
  if (sel.byIds) return sel.params.map(([, id]) => id);
  return (await allAlerts(http, sel.params)).map((a) => a.id);
}
