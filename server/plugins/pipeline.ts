import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Base } from '../deps.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import type { PluginPipeline, ReceiptAlong } from '../domain/plugin-hooks.ts';
import { appError, AppError } from '../errors.ts';
import ackedBy from './acked-by.ts';
import blackout from './blackout.ts';
import enhance from './enhance.ts';
import escalate from './escalate.ts';
import forwarder from './forwarder.ts';
import heartbeat from './heartbeat.ts';
import normalise from './normalise.ts';
import { settingsPlugins } from '../notifications/plugin.ts';
import reject from './reject.ts';
import remoteIp from './remote-ip.ts';
import timeout from './timeout.ts';
import type { BuiltinFactory, BuiltinInit, BuiltinPlugin } from './internal.ts';
import {
  PluginSignal,
  suppressedStatus,
  type AlertChanges,
  type Plugin,
  type PluginContext,
  type PluginFactory,
  type PluginRequest,
} from './types.ts';

/** The plugins PLUGINS may name (docs/plugins.md). */
export const BUILTIN_PLUGINS: Readonly<Record<string, BuiltinFactory>> = Object.freeze({
  remote_ip: remoteIp,
  reject,
  heartbeat,
  blackout,
  acked_by: ackedBy,
  escalate,
  timeout,
  normalise,
  enhance,
  forwarder,
  // The established notification plugins: receivers made from their settings (docs/notifications.md).
  ...settingsPlugins,
});

/** A PLUGINS entry naming a module rather than a built-in. */
const isModulePath = (entry: string) => /^(\.\.?\/|\/)/.test(entry) || /\.(ts|js|mjs)$/.test(entry);

const isPlugin = (value: unknown): value is Plugin =>
  typeof value === 'object' && value !== null && typeof (value as Plugin).name === 'string';

/** Imports a third-party plugin module; its default export is a factory or a plugin object. */
async function importPlugin(entry: string): Promise<PluginFactory | Plugin> {
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(resolve(process.cwd(), entry)).href)) as { default?: unknown };
  } catch (err) {
    throw new Error(`PLUGINS: cannot load '${entry}': ${(err as Error).message}`, { cause: err });
  }
  const exported = mod.default;
  if (typeof exported === 'function') return exported as PluginFactory;
  if (isPlugin(exported)) return exported;
  throw new Error(`PLUGINS: '${entry}' must export a plugin factory or a plugin object as default`);
}

/**
 * A module's plugin as the pipeline runs it: its public hooks only, so a module cannot reach the
 * built-ins' hooks (receiptAlong …) by defining them. Bound, so a plugin may be a class instance.
 */
function publicHooks(plugin: Plugin): Plugin {
  return {
    name: plugin.name,
    preReceive: plugin.preReceive?.bind(plugin),
    postReceive: plugin.postReceive?.bind(plugin),
    statusChange: plugin.statusChange?.bind(plugin),
    takeAction: plugin.takeAction?.bind(plugin),
    postAction: plugin.postAction?.bind(plugin),
    takeNote: plugin.takeNote?.bind(plugin),
    delete: plugin.delete?.bind(plugin),
  };
}

/**
 * The PLUGINS, in order: built-ins by name, made from `init` (settings, logger, the services they
 * call); third-party plugins by module path (relative to the working directory), whose factories
 * get only the settings and the logger. Unknown names are logged and skipped; a module that cannot
 * be loaded or a factory that throws stops start-up with an error naming the entry.
 */
export async function loadPlugins(init: BuiltinInit): Promise<BuiltinPlugin[]> {
  const { config, log } = init;
  const plugins: BuiltinPlugin[] = [];
  for (const entry of config.PLUGINS.map((e) => e.trim()).filter(Boolean)) {
    const builtin = Object.hasOwn(BUILTIN_PLUGINS, entry) ? BUILTIN_PLUGINS[entry] : undefined;
    const module = !builtin && isModulePath(entry) ? await importPlugin(entry) : undefined;
    if (!builtin && !module) {
      log.warn({ plugin: entry }, 'plugin.unknown: not a built-in plugin or a module path; skipped');
      continue;
    }
    let plugin: unknown;
    try {
      if (builtin) plugin = await builtin(init);
      else plugin = typeof module === 'function' ? await module({ config, log }) : module;
    } catch (err) {
      throw new Error(`PLUGINS: '${entry}' failed to start: ${(err as Error).message}`, { cause: err });
    }
    if (!isPlugin(plugin)) throw new Error(`PLUGINS: '${entry}' did not give a plugin with a name`);
    plugins.push(builtin ? plugin : publicHooks(plugin));
  }
  log.debug({ plugins: plugins.map((p) => p.name) }, 'plugins.loaded');
  return plugins;
}

/** How the established server names a hook in its error message. */
type ErrorLabel = 'pre-receive' | 'post-receive' | 'status' | 'action' | 'note' | 'delete';
type HookName =
  'preReceive' | 'postReceive' | 'statusChange' | 'takeAction' | 'postAction' | 'takeNote' | 'delete';

const ERROR_LABEL: Record<HookName, ErrorLabel> = {
  preReceive: 'pre-receive',
  postReceive: 'post-receive',
  statusChange: 'status',
  takeAction: 'action',
  postAction: 'action',
  takeNote: 'note',
  delete: 'delete',
};

/** Later changes win: tags replace, attributes merge (a null value stays: it means "delete the key"). */
function mergeChanges(earlier: AlertChanges | undefined, later: AlertChanges | void | null) {
  if (!later) return earlier;
  const merged: AlertChanges = { ...earlier };
  if (later.severity !== undefined) merged.severity = later.severity;
  if (later.tags !== undefined) merged.tags = [...later.tags];
  if (later.attributes !== undefined) merged.attributes = { ...merged.attributes, ...later.attributes };
  return merged;
}

/** The alert as the next hook sees it: earlier changes applied, on copies a hook cannot leak through. */
function withChanges(alert: AlertRecord, changes: AlertChanges | undefined): AlertRecord {
  const attributes = { ...alert.attributes };
  for (const [key, value] of Object.entries(changes?.attributes ?? {})) {
    if (value === null) delete attributes[key];
    else attributes[key] = value;
  }
  return {
    ...alert,
    severity: changes?.severity ?? alert.severity,
    tags: [...(changes?.tags ?? alert.tags)],
    attributes,
  };
}

const withOptional = <T extends object>(result: T, changes: AlertChanges | undefined) =>
  changes ? { ...result, changes } : result;

/**
 * Runs the hooks in PLUGINS order (reference §1): each hook sees the changes of the ones before;
 * PluginSignal, AppError and database outages pass through; any other failure is a 500 with
 * PLUGINS_RAISE_ON_ERROR, else logged and skipped. Every call is timed and failures counted.
 */
export function createPipeline(
  plugins: readonly BuiltinPlugin[],
  { config, log, metrics }: Pick<Base, 'config' | 'log' | 'metrics'>,
): PluginPipeline {
  const suppressed = suppressedStatus(config);
  const logs = new Map(plugins.map((p) => [p, log.child({ plugin: p.name })]));
  const contextFor = (plugin: BuiltinPlugin, request: PluginRequest): PluginContext => ({
    config,
    log: logs.get(plugin) ?? log,
    request,
  });
  const having = (hook: HookName) => plugins.filter((p) => typeof p[hook] === 'function');
  // Receipts write their forward rows and notification triggers in their own statement when no
  // other post-receive hook could change the alert first (docs/architecture.md, "The receive path").
  const planners = plugins.filter((p) => typeof p.receiptAlong === 'function');
  const followers = plugins.filter((p) => typeof p.afterReceipt === 'function');
  const folds = plugins.every((p) => !p.postReceive || p.receiptAlong);

  // Each plugin's labels for each hook, made once: run() is called several times per receipt.
  const labelSets = new Map<BuiltinPlugin, Partial<Record<HookName, { plugin: string; hook: HookName }>>>();
  const labelsOf = (plugin: BuiltinPlugin, hook: HookName) => {
    let sets = labelSets.get(plugin);
    if (!sets) labelSets.set(plugin, (sets = {}));
    return (sets[hook] ??= { plugin: plugin.name, hook });
  };

  async function run<T>(
    plugin: BuiltinPlugin,
    hook: HookName,
    call: () => T | Promise<T>,
  ): Promise<T | undefined> {
    const labels = labelsOf(plugin, hook);
    // performance.now() rather than startTimer, which makes two closures and a copy of the labels.
    const started = performance.now();
    try {
      return await call();
    } catch (err) {
      if (err instanceof PluginSignal || err instanceof AppError) throw err;
      // An outage is not the plugin's failure: it stays what it is (503 at the edge), whether the
      // plugin let it through or wrapped it, and PLUGINS_RAISE_ON_ERROR does not hide it.
      if (isDatabaseUnavailable(err)) throw err;
      metrics.pluginErrors.inc(labels);
      const message = err instanceof Error ? err.message : String(err);
      if (config.PLUGINS_RAISE_ON_ERROR) {
        throw appError('plugin_failed', ERROR_LABEL[hook], plugin.name, message);
      }
      log.warn({ plugin: plugin.name, hook, error: message }, 'plugin.failed');
      return undefined;
    } finally {
      metrics.pluginDuration.observe(labels, (performance.now() - started) / 1000);
    }
  }

  function plan(
    request: PluginRequest,
    from: readonly BuiltinPlugin[],
    call: (plugin: BuiltinPlugin, ctx: PluginContext) => Partial<ReceiptAlong> | void,
  ): ReceiptAlong {
    const planned: ReceiptAlong = { forwards: [], triggers: [] };
    for (const plugin of from) {
      let part: Partial<ReceiptAlong> | void;
      try {
        part = call(plugin, contextFor(plugin, request));
      } catch (err) {
        metrics.pluginErrors.inc({ plugin: plugin.name, hook: 'postReceive' });
        const message = err instanceof Error ? err.message : String(err);
        if (config.PLUGINS_RAISE_ON_ERROR) {
          throw appError('plugin_failed', 'post-receive', plugin.name, message);
        }
        log.warn({ plugin: plugin.name, hook: 'postReceive', error: message }, 'plugin.failed');
        continue;
      }
      if (part?.forwards) planned.forwards.push(...part.forwards);
      if (part?.triggers) planned.triggers.push(...part.triggers);
      if (part?.ready)
        planned.ready = planned.ready ? Promise.all([planned.ready, part.ready]).then(() => {}) : part.ready;
    }
    return planned;
  }
  // A plain duplicate is planned by the plugins that plan anything for one, from the alert's id.
  const plainPlanners = planners.filter((p) => !p.quietOnPlainDuplicates);
  const along = (alert: AlertRecord, request: PluginRequest) =>
    plan(request, planners, (plugin, ctx) => plugin.receiptAlong!(alert, ctx));
  const alongPlain = (alertId: string, request: PluginRequest) =>
    plan(request, plainPlanners, (plugin, ctx) => plugin.plainAlong!(alertId, ctx));

  return {
    ...(folds ? { along, alongPlain } : {}),
    alongOnPlain: folds && plainPlanners.some((p) => !p.plainAlong),

    async preReceive(draft, request) {
      // A submission that arrives suppressed still passes every hook (reject included); only a
      // hook that suppresses it cuts the rest short.
      const arrivedSuppressed = draft.status === suppressed;
      let alert = draft;
      for (const plugin of having('preReceive')) {
        const returned = await run(plugin, 'preReceive', () =>
          plugin.preReceive!(alert, contextFor(plugin, request)),
        );
        if (returned) alert = returned;
        if (!arrivedSuppressed && alert.status === suppressed) return { alert, suppressed: true };
      }
      return { alert, suppressed: alert.status === suppressed };
    },

    async postReceive(alert, request, written) {
      if (written && folds) {
        for (const plugin of followers) {
          await run(plugin, 'postReceive', () =>
            plugin.afterReceipt!(withChanges(alert, undefined), written, contextFor(plugin, request)),
          );
        }
        return null;
      }
      let changes: AlertChanges | undefined;
      for (const plugin of having('postReceive')) {
        const result = await run(plugin, 'postReceive', () =>
          plugin.postReceive!(withChanges(alert, changes), contextFor(plugin, request)),
        );
        changes = mergeChanges(changes, result);
      }
      return changes ?? null;
    },

    async statusChange(alert, status, text, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of having('statusChange')) {
        const result = await run(plugin, 'statusChange', () =>
          plugin.statusChange!(withChanges(alert, changes), status, text, contextFor(plugin, request)),
        );
        if (!result) continue;
        status = result.status ?? status;
        text = result.text ?? text;
        changes = mergeChanges(changes, result.changes);
      }
      return withOptional({ status, text }, changes);
    },

    async takeAction(alert, action, text, timeout, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of having('takeAction')) {
        const result = await run(plugin, 'takeAction', () =>
          plugin.takeAction!(withChanges(alert, changes), action, text, timeout, contextFor(plugin, request)),
        );
        if (!result) continue;
        action = result.action ?? action;
        text = result.text ?? text;
        if (result.timeout !== undefined) timeout = result.timeout;
        changes = mergeChanges(changes, result.changes);
      }
      return withOptional({ action, text, timeout }, changes);
    },

    async postAction(alert, action, text, timeout, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of having('postAction')) {
        const result = await run(plugin, 'postAction', () =>
          plugin.postAction!(withChanges(alert, changes), action, text, timeout, contextFor(plugin, request)),
        );
        changes = mergeChanges(changes, result);
      }
      return changes ?? null;
    },

    async takeNote(alert, text, request) {
      for (const plugin of having('takeNote')) {
        const result = await run(plugin, 'takeNote', () =>
          plugin.takeNote!(withChanges(alert, undefined), text, contextFor(plugin, request)),
        );
        text = result?.text ?? text;
      }
      return { text };
    },

    async delete(alert, request) {
      for (const plugin of having('delete')) {
        const result = await run(plugin, 'delete', () =>
          plugin.delete!(withChanges(alert, undefined), contextFor(plugin, request)),
        );
        // The first veto ends it: later hooks (the forwarder) must not act on a deletion that will not happen.
        if (result === false) return false;
      }
      return true;
    },
  };
}
