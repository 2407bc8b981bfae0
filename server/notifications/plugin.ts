import type { PluginFactory } from '../plugins/types.ts';
import { engineOf } from './engine.ts';
import { SETTINGS_PLUGINS, settingsReceiver, type SettingsPlugin } from './from-settings.ts';
import { statusClass } from './rules.ts';

/**
 * Notification routing's hooks (docs/notifications.md). Always run, after the PLUGINS, so they see
 * what every other hook decided. Suppressed (blacked-out) receipts never reach post-receive hooks.
 */
export const notificationsPlugin: PluginFactory = () => ({
  name: 'notifications',
  postReceive(alert, ctx) {
    const engine = engineOf(ctx.deps);
    if (!engine) return;
    // A duplicate that changed neither severity nor status (updateTime moves only with the
    // status) is nothing people need to hear again: no work at all on the busiest path.
    if (alert.repeat && alert.updateTime !== alert.lastReceiveTime) return;
    engine.alertChanged(alert, statusClass(alert.status));
  },
  postAction(alert, _action, _text, _timeout, ctx) {
    const engine = engineOf(ctx.deps);
    if (engine && !engine.routing.isIdle) engine.scheduler.changed(alert.id);
  },
});

/**
 * The established notification plugins' names (slack, msteams, pagerduty …) in PLUGINS: each checks
 * its settings at start-up and stands for a receiver the notifications engine sends to; the
 * plugin itself has no hooks.
 */
export const settingsPlugins: Record<SettingsPlugin, PluginFactory> = Object.fromEntries(
  SETTINGS_PLUGINS.map((name) => [
    name,
    (({ config }) => {
      settingsReceiver(name, config);
      return { name };
    }) satisfies PluginFactory,
  ]),
) as Record<SettingsPlugin, PluginFactory>;
