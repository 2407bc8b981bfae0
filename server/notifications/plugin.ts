import type { AlertRecord } from '../domain/alert-types.ts';
import type { BuiltinPlugin } from '../plugins/internal.ts';
import type { PluginFactory } from '../plugins/types.ts';
import type { Engine } from './engine.ts';
import { SETTINGS_PLUGINS, settingsReceiver, type SettingsPlugin } from './from-settings.ts';
import { statusClass } from './rules.ts';

/**
 * A duplicate that changed neither severity nor status (updateTime moves only with the status) is
 * nothing people need to hear again: no work at all on the busiest path.
 */
const unchanged = (alert: AlertRecord) => alert.repeat && alert.updateTime !== alert.lastReceiveTime;

/**
 * Notification routing's hooks (docs/notifications.md). Always run, after the PLUGINS, so they see
 * what every other hook decided. Suppressed (blacked-out) receipts never reach post-receive hooks.
 */
export const notificationsPlugin = (engine: Engine): BuiltinPlugin => ({
  name: 'notifications',
  // `unchanged` holds for every plain duplicate.
  quietOnPlainDuplicates: true,
  // Triggers are planned on the alert as the receipt will store it and written by the receipt's own
  // statement (committed with the alert); postReceive stays for when another plugin's post-receive
  // hook runs first (it may change what the rules see).
  receiptAlong(alert) {
    if (unchanged(alert)) return;
    return { triggers: engine.plan(alert, statusClass(alert.status)) };
  },
  afterReceipt(alert, written) {
    if (unchanged(alert)) return;
    engine.followed(alert, statusClass(alert.status), written.along);
  },
  async postReceive(alert) {
    if (unchanged(alert)) return;
    await engine.alertChanged(alert, statusClass(alert.status));
  },
  postAction(alert) {
    if (!engine.routing.isIdle) engine.scheduler.changed(alert.id);
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
