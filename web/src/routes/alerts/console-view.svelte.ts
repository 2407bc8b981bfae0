import { goto } from '$app/navigation';
import { page } from '$app/state';
import type { LiveAlert } from '../../../../shared/alerts.ts';
import { alertOrder, alertsCsv, cellText } from '../../lib/alerts.ts';
import { api } from '../../lib/api.ts';
import { clientConfig, defaultSort, severityOrder, type ClientConfig } from '../../lib/config.ts';
import { formatTime, loadPreferences, type Preferences } from '../../lib/preferences.ts';
import { plainWords, searchQuery } from './search.ts';
import { configFilterParams, hasFilter, isFilterKey } from './view.ts';

/**
 * The console's view state (docs/ui-console.md): everything derived from the page's URL (filters,
 * sort, page, columns, theme, density), `/config` and the user's preferences, and every change as
 * a new URL. The page, the toolbar and the table read it; nothing here touches the DOM.
 */
export class ConsoleView {
  config = $state.raw<ClientConfig | null>(null);
  prefs = $state.raw<Preferences | null>(null);
  /** Old alerta-webui links are rewritten before the first subscription. */
  urlReady = $state(false);
  /** The clock behind relative times, countdowns and highlights (set by the page every second). */
  now = $state(Date.now());
  error = $state<string | null>(null);

  readonly params = $derived(page.url.searchParams);
  readonly kiosk = $derived(this.params.get('kiosk') === '1');
  /** Theme, density, page size and timezone: the URL, else the user's preferences, else the OS / server. */
  readonly theme = $derived(
    this.params.get('theme') ??
      (this.prefs?.isDark === true ? 'dark' : this.prefs?.isDark === false ? 'light' : null),
  );
  readonly compact = $derived((this.params.get('density') ?? this.prefs?.displayDensity) === 'compact');
  readonly rowHeight = $derived(this.compact ? 20 : 26);
  readonly timezone = $derived<'local' | 'utc'>(this.prefs?.timezone === 'utc' ? 'utc' : 'local');

  readonly defaultFilter = $derived(
    this.config ? configFilterParams(this.config.filter, Date.now()) : new URLSearchParams(),
  );
  readonly usesDefault = $derived(!hasFilter(this.params) && this.params.get('filter') !== 'none');
  /** The filter in effect: the URL's, or `/config filter` when the URL selects nothing. */
  readonly filters = $derived.by(() => {
    const p = new URLSearchParams();
    for (const [k, v] of this.params) if (isFilterKey(k)) p.append(k, v);
    if (this.usesDefault) for (const [k, v] of this.defaultFilter) p.append(k, v);
    return p;
  });
  /** The filter as the API takes it: the search box's text turned into `q` (search.ts). */
  readonly apiFilters = $derived.by(() => {
    const p = new URLSearchParams(this.filters);
    const typed = p.get('q');
    if (typed !== null) p.set('q', searchQuery(typed));
    return p;
  });
  /** The search's plain words when the box holds plain words (search.ts), for the empty list's hint. */
  readonly plainSearch = $derived(plainWords(this.filters.get('q') ?? ''));
  readonly urlSort = $derived(this.params.getAll('sort-by').filter(Boolean));
  readonly sortKeys = $derived(
    this.urlSort.length ? this.urlSort : this.config ? defaultSort(this.config) : [],
  );
  readonly pageNumber = $derived(Math.max(1, Math.floor(Number(this.params.get('page'))) || 1));
  readonly pageSize = $derived(Number(this.params.get('page-size')) || this.prefs?.rowsPerPage || 0);
  /** The view as GET /alerts and the subscription take it (docs/live.md); null until it is known. */
  readonly query = $derived.by(() => {
    if (!this.config || !this.prefs || !this.urlReady) return null;
    const p = new URLSearchParams(this.apiFilters);
    for (const k of this.sortKeys) p.append('sort-by', k);
    const reverse = this.params.get('reverse');
    if (reverse) p.set('reverse', reverse);
    if (this.pageNumber > 1) p.set('page', String(this.pageNumber));
    if (this.pageSize) p.set('page-size', String(this.pageSize));
    return p.toString();
  });

  readonly severities = $derived(this.config ? severityOrder(this.config) : []);
  readonly compare = $derived(alertOrder(this.severities, this.sortKeys));
  /** Default action timeouts: the user's preference, else `/config timeouts`; 0 is the server's. */
  readonly defaults = $derived({
    ack: this.prefs?.ackTimeout || this.config?.timeouts.ack || 0,
    shelve: this.prefs?.shelveTimeout || this.config?.timeouts.shelve || 0,
  });
  readonly custom = $derived(this.config?.actions ?? []);
  readonly statuses = $derived(
    this.config
      ? Object.entries(this.config.alarm_model.status)
          .sort((a, b) => a[1].localeCompare(b[1]))
          .map(([s]) => s)
      : [],
  );

  // ---- columns and cells ------------------------------------------------------------------
  private readonly allowed = (c: string) => this.config?.customer_views || c !== 'customer';
  readonly defaultColumns = $derived((this.config?.columns ?? []).filter(this.allowed));
  readonly chosenColumns = $derived((this.params.get('cols') ?? '').split(',').filter(Boolean));
  readonly columns = $derived(
    this.chosenColumns.length ? this.chosenColumns.filter(this.allowed) : this.defaultColumns,
  );
  /**
   * The first moment of this year in the user's zone: it changes once a year, so cells that only
   * need to know "this year or not" do not recompute with every tick of `now`.
   */
  readonly yearStart = $derived.by(() => {
    const d = new Date(this.now);
    return this.timezone === 'utc'
      ? Date.UTC(d.getUTCFullYear(), 0, 1)
      : new Date(d.getFullYear(), 0, 1).getTime();
  });
  /** A time in `/config dates[format]` and the user's zone; with its year when not this year's. */
  time = (format: keyof ClientConfig['dates']) => (iso: string) =>
    this.config ? formatTime(iso, this.config.dates[format], this.timezone, this.yearStart) : iso;
  readonly mediumTime = $derived(this.time('mediumDate'));
  readonly longTime = $derived(this.time('longDate'));
  /**
   * One cell's text; `statusEnd` is when the alert's ack or shelve ends (StatusEnds). Only the
   * timeout-left cells follow the clock: the others are not recomputed every second.
   */
  cell = (a: LiveAlert, column: string, statusEnd?: number | null) =>
    cellText(a, column, column === 'timeoutLeft' ? this.now : 0, this.mediumTime, statusEnd);

  // ---- navigation: every change is a new URL ----------------------------------------------
  href(p: URLSearchParams): string {
    const s = p.toString();
    return `/alerts${s ? `?${s}` : ''}`;
  }
  go(p: URLSearchParams) {
    return goto(this.href(p), { reset: false });
  }
  /** Sets (or removes) one parameter that is not a filter: theme, density, cols, sort-by, page. */
  setParam(name: string, value: string | string[] | null) {
    const next = new URLSearchParams(page.url.search);
    next.delete(name);
    for (const v of value === null ? [] : Array.isArray(value) ? value : [value]) next.append(name, v);
    // A new order or page size starts again from the first page.
    if (name === 'sort-by' || name === 'page-size') next.delete('page');
    void this.go(next);
  }
  /** The URL with the filter changed; the default filter is written out first, so it stays visible. */
  filterHref(change: (p: URLSearchParams) => void): string {
    const next = new URLSearchParams(page.url.search);
    if (this.usesDefault) for (const [k, v] of this.defaultFilter) next.append(k, v);
    next.delete('filter');
    next.delete('page');
    change(next);
    if (!hasFilter(next) && hasFilter(this.defaultFilter)) next.set('filter', 'none');
    return this.href(next);
  }
  setFilters = (change: (p: URLSearchParams) => void) => goto(this.filterHref(change), { reset: false });
  resetFilters() {
    const next = new URLSearchParams(page.url.search);
    for (const k of [...next.keys()]) if (isFilterKey(k) || k === 'filter' || k === 'page') next.delete(k);
    void this.go(next);
  }

  // ---- environment tabs: counts of the view minus its environment -------------------------
  environments = $state<{ environment: string; count: number }[]>([]);
  readonly tabQuery = $derived.by(() => {
    const q = new URLSearchParams(this.apiFilters);
    q.delete('environment');
    return q.toString();
  });
  private tabsTimer: ReturnType<typeof setTimeout> | null = null;
  /** Reloads the tab counts soon (at once the first time, then at most once a second). */
  refreshTabs() {
    if (this.tabsTimer) return;
    this.tabsTimer = setTimeout(() => void this.loadTabs(), this.environments.length ? 1000 : 0);
  }
  private async loadTabs() {
    this.tabsTimer = null;
    try {
      const answer = await api<{ environments: { environment: string; count: number }[] }>(
        'GET',
        `/environments?${this.tabQuery}`,
      );
      this.environments = answer.environments;
    } catch {
      // The list itself reports connection and credential problems.
    }
  }
  readonly tabs = $derived.by(() => {
    if (!this.prefs?.showAllowedEnvs || !this.config) return this.environments;
    const counts = new Map(this.environments.map((e) => [e.environment, e.count]));
    const names = [...new Set([...(this.config.environments ?? []), ...counts.keys()])].sort();
    return names.map((environment) => ({ environment, count: counts.get(environment) ?? 0 }));
  });
  readonly allCount = $derived(this.environments.reduce((n, e) => n + e.count, 0));
  readonly currentEnvironment = $derived(this.filters.get('environment'));
  tabHref = (environment: string | null) =>
    this.filterHref((p) => {
      p.delete('environment');
      if (environment) p.set('environment', environment);
    });

  // ---- CSV of every alert matching the view, paged through GET /alerts --------------------
  exporting = $state(false);
  /** Downloads the CSV; resolves to an error message, or null. */
  async exportCsv(): Promise<string | null> {
    this.exporting = true;
    try {
      const all: LiveAlert[] = [];
      const q = new URLSearchParams(this.apiFilters);
      for (const k of this.sortKeys) q.append('sort-by', k);
      q.set('page-size', '1000');
      for (let n = 1; ; n++) {
        q.set('page', String(n));
        type Answer = { alerts: LiveAlert[]; total: number; more?: boolean };
        const answer = await api<Answer>('GET', `/alerts?${q}`);
        all.push(...answer.alerts);
        if (!answer.more || answer.alerts.length === 0 || all.length >= answer.total) break;
      }
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([alertsCsv(all)], { type: 'text/csv;charset=utf-8' }));
      link.download = 'alerts.csv';
      link.click();
      URL.revokeObjectURL(link.href);
      return null;
    } catch (err) {
      return `CSV export: ${(err as Error).message}`;
    } finally {
      this.exporting = false;
    }
  }

  /** Loads `/config` and the preferences; the query is known once both are in. */
  load() {
    clientConfig()
      .then((c) => (this.config = c))
      .catch((err: Error) => (this.error = `GET /config: ${err.message}`));
    loadPreferences()
      .then((p) => (this.prefs = p))
      .catch(() => (this.prefs = {}));
  }

  stop() {
    if (this.tabsTimer) clearTimeout(this.tabsTimer);
  }
}
