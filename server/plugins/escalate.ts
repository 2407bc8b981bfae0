import { createAlarmModel } from '../domain/alarm-model.ts';
import { appError } from '../errors.ts';
import type { PluginFactory } from './types.ts';

const ESCALATE = 'escalate';

/**
 * escalate: the custom action `escalate` raises the severity one level — to the nearest more
 * severe code, first name at that code — and leaves the status alone. PUT /action takes it either
 * way; listing it in ACTIONS makes the UI offer it.
 */
const escalate: PluginFactory = ({ config, log }) => {
  const model = createAlarmModel(config);
  if (!config.ACTIONS.includes(ESCALATE)) {
    log.warn({ plugin: 'escalate' }, "plugin.escalate: add 'escalate' to ACTIONS to offer the action");
  }
  const names = Object.keys(model.severity);
  /** Severity → the one a level above it; absent at the top. */
  const above = new Map<string, string>();
  for (const name of names) {
    const rank = model.severityRank(name);
    const higher = names.filter((n) => model.severityRank(n) < rank);
    const nearest = Math.max(...higher.map((n) => model.severityRank(n)));
    const target = higher.find((n) => model.severityRank(n) === nearest);
    if (target) above.set(name, target);
  }
  return {
    name: 'escalate',
    takeAction(alert, action) {
      if (action !== ESCALATE) return;
      const next = above.get(alert.severity);
      if (!next) throw appError('escalation_at_top', alert.severity);
      return { text: 'alert severity escalated', changes: { severity: next } };
    },
  };
};

export default escalate;
