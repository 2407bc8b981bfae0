import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import { AppError } from '../errors.ts';
import type { Log } from '../log.ts';
import { BUILTIN_PLUGINS } from './builtins.ts';
import {
  PluginSignal,
  type AlertChanges,
  type Plugin,
  type PluginFactory,
  type PluginPipeline,
  type PluginRequest,
} from './types.ts';

const isModulePath = (entry: string) => /^(\.{1,2}\/|\/)/.test(entry) || /\.(ts|js|mjs)$/.test(entry);

/** The PLUGINS, in order: built-ins by name, third-party ones by module path; unknown names are skipped. */
export async function loadPlugins(config: Config, log: Log): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const entry of config.PLUGINS) {
    let factory: PluginFactory | Plugin | undefined = BUILTIN_PLUGINS[entry];
    if (!factory && isModulePath(entry)) {
      try {
        const mod = (await import(pathToFileURL(resolve(process.cwd(), entry)).href)) as {
          default?: PluginFactory | Plugin;
        };
        factory = mod.default;
      } catch (err) {
        throw new Error(`PLUGINS: cannot load '${entry}': ${(err as Error).message}`, { cause: err });
      }
      if (!factory) throw new Error(`PLUGINS: '${entry}' has no default export`);
    }
    if (!factory) {
      log.warn({ plugin: entry }, 'plugin.unknown: skipped');
      continue;
    }
    try {
      plugins.push(typeof factory === 'function' ? await factory({ config, log }) : factory);
    } catch (err) {
      throw new Error(`PLUGINS: '${entry}' failed to start: ${(err as Error).message}`, { cause: err });
    }
  }
  return plugins;
}

type Hook = 'pre-receive' | 'post-receive' | 'status' | 'action' | 'note' | 'delete';

/** Folds hook changes: tags replace, attributes merge (null stays, meaning "delete"), severity replaces. */
function fold(into: AlertChanges | undefined, more: AlertChanges | undefined): AlertChanges | undefined {
  if (!more) return into;
  return {
    severity: more.severity ?? into?.severity,
    tags: more.tags ?? into?.tags,
    attributes: into?.attributes || more.attributes ? { ...into?.attributes, ...more.attributes } : undefined,
  };
}

function applyChanges(alert: AlertRecord, changes: AlertChanges | undefined): AlertRecord {
  if (!changes) return alert;
  return {
    ...alert,
    severity: changes.severity ?? alert.severity,
    tags: changes.tags ?? alert.tags,
    attributes: { ...alert.attributes, ...changes.attributes },
  };
}

/** Runs hooks in PLUGINS order with the established error policy, timing and counting each call. */
export function createPipeline(plugins: Plugin[], deps: Deps): PluginPipeline {
  const { config, log, metrics } = deps;
  const suppressedStatus = config.ALARM_MODEL === 'ISA_18_2' ? 'OOSRV' : 'blackout';
  const context = (request: PluginRequest) => ({ config, log, deps, request });

  /** Calls one hook; signals and API errors pass through, other failures follow PLUGINS_RAISE_ON_ERROR. */
  async function call<T>(plugin: Plugin, hook: Hook, fn: () => Promise<T> | T): Promise<T | undefined> {
    const end = metrics.pluginDuration.startTimer({ plugin: plugin.name, hook });
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PluginSignal || err instanceof AppError) throw err;
      metrics.pluginErrors.inc({ plugin: plugin.name, hook });
      const message = err instanceof Error ? err.message : String(err);
      if (config.PLUGINS_RAISE_ON_ERROR)
        throw new AppError(500, `Error while running ${hook} plugin '${plugin.name}': ${message}`);
      log.warn({ plugin: plugin.name, hook, error: message }, 'plugin.failed');
      return undefined;
    } finally {
      end();
    }
  }

  return {
    async preReceive(alert, request) {
      let current = alert;
      for (const plugin of plugins) {
        if (!plugin.preReceive) continue;
        const result = await call(plugin, 'pre-receive', () => plugin.preReceive!(current, context(request)));
        if (result) current = result;
        if (current.status === suppressedStatus) return { alert: current, suppressed: true };
      }
      return { alert: current, suppressed: false };
    },
    async postReceive(alert, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of plugins) {
        if (!plugin.postReceive) continue;
        changes = fold(
          changes,
          (await call(plugin, 'post-receive', () =>
            plugin.postReceive!(applyChanges(alert, changes), context(request)),
          )) ?? undefined,
        );
      }
      return changes ?? null;
    },
    async statusChange(alert, status, text, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of plugins) {
        if (!plugin.statusChange) continue;
        const r = await call(plugin, 'status', () =>
          plugin.statusChange!(applyChanges(alert, changes), status, text, context(request)),
        );
        if (!r) continue;
        status = r.status ?? status;
        text = r.text ?? text;
        changes = fold(changes, r.changes);
      }
      return { status, text, changes };
    },
    async takeAction(alert, action, text, timeout, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of plugins) {
        if (!plugin.takeAction) continue;
        const r = await call(plugin, 'action', () =>
          plugin.takeAction!(applyChanges(alert, changes), action, text, timeout, context(request)),
        );
        if (!r) continue;
        action = r.action ?? action;
        text = r.text ?? text;
        timeout = r.timeout !== undefined ? r.timeout : timeout;
        changes = fold(changes, r.changes);
      }
      return { action, text, timeout, changes };
    },
    async postAction(alert, action, text, timeout, request) {
      let changes: AlertChanges | undefined;
      for (const plugin of plugins) {
        if (!plugin.postAction) continue;
        changes = fold(
          changes,
          (await call(plugin, 'action', () =>
            plugin.postAction!(applyChanges(alert, changes), action, text, timeout, context(request)),
          )) ?? undefined,
        );
      }
      return changes ?? null;
    },
    async takeNote(alert, text, request) {
      for (const plugin of plugins) {
        if (!plugin.takeNote) continue;
        const r = await call(plugin, 'note', () => plugin.takeNote!(alert, text, context(request)));
        text = r?.text ?? text;
      }
      return { text };
    },
    async delete(alert, request) {
      let allowed = true;
      for (const plugin of plugins) {
        if (!plugin.delete) continue;
        if ((await call(plugin, 'delete', () => plugin.delete!(alert, context(request)))) === false)
          allowed = false;
      }
      return allowed;
    },
  };
}
