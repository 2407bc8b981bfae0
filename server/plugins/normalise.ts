import type { PluginFactory } from './types.ts';

/** normalise (contrib): text `<SEVERITY>: <text>`, group Misc or empty → Unknown, value empty or n/a → `--`. */
const normalise: PluginFactory = () => ({
  name: 'normalise',
  preReceive(alert) {
    alert.text = `${alert.severity.toUpperCase()}: ${alert.text}`;
    if (!alert.group || alert.group === 'Misc') alert.group = 'Unknown';
    if (!alert.value || alert.value === 'n/a') alert.value = '--';
  },
});

export default normalise;
