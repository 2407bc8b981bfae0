import { createAlarmModel } from '../domain/alarm-model.ts';
import { findActiveBlackout } from '../domain/blackouts.ts';
import { receiveHeartbeat } from '../domain/heartbeats.ts';
import { conflict, rejected } from '../errors.ts';
import { PluginSignal, type PluginFactory } from './types.ts';

/** Compiles a settings list of regular expressions, naming the setting if one is invalid. */
function patterns(setting: string, list: readonly string[], anchor: (p: string) => string): RegExp[] {
  return list.map((p) => {
    try {
      return new RegExp(anchor(p));
    } catch {
      throw new Error(`${setting}: '${p}' is not a valid regular expression`);
    }
  });
}

/** remote_ip: attribute `ip` = first X-Forwarded-For address, else the socket peer. */
const remoteIp: PluginFactory = () => ({
  name: 'remote_ip',
  preReceive(alert, ctx) {
    const forwarded = ctx.request.header('X-Forwarded-For').split(',')[0]?.trim();
    alert.attributes.ip = forwarded || ctx.request.ip.replace(/^::ffff:/, '');
  },
});

/** reject: ORIGIN_BLACKLIST (from the start), ALLOWED_ENVIRONMENTS (full match), a service is required. */
const reject: PluginFactory = ({ config }) => {
  const blacklist = patterns('ORIGIN_BLACKLIST', config.ORIGIN_BLACKLIST, (p) => `^(?:${p})`);
  const allowed = patterns('ALLOWED_ENVIRONMENTS', config.ALLOWED_ENVIRONMENTS, (p) => `^(?:${p})$`);
  return {
    name: 'reject',
    preReceive(alert) {
      if (blacklist.some((re) => re.test(alert.origin))) {
        throw rejected(`[POLICY] Alert origin '${alert.origin}' has been blacklisted`);
      }
      if (!allowed.some((re) => re.test(alert.environment))) {
        throw rejected(
          `[POLICY] Alert environment does not match one of ${config.ALLOWED_ENVIRONMENTS.join(', ')}`,
        );
      }
      if (alert.service.length === 0) throw rejected('[POLICY] Alert must define a service');
    },
  };
};

/** heartbeat: an alert whose event is in HEARTBEAT_EVENTS becomes a heartbeat (202). */
const heartbeat: PluginFactory = ({ config }) => ({
  name: 'heartbeat',
  async preReceive(alert, ctx) {
    if (!config.HEARTBEAT_EVENTS.includes(alert.event)) return;
    const hb = await receiveHeartbeat(
      ctx.deps,
      {
        origin: alert.origin,
        tags: alert.tags,
        attributes: {
          environment: alert.environment,
          severity: alert.severity,
          service: alert.service,
          group: alert.group,
        },
        createTime: alert.createTime,
        timeout: alert.timeout,
        customer: alert.customer,
      },
      ctx.request.baseUrl,
    );
    throw new PluginSignal(202, 'Alert converted to Heartbeat', { id: hb.id });
  },
});

/** blackout: suppress (202) or, with NOTIFICATION_BLACKOUT, keep the alert with the blackout status. */
const blackout: PluginFactory = ({ config }) => {
  const suppressed = config.ALARM_MODEL === 'ISA_18_2' ? 'OOSRV' : 'blackout';
  return {
    name: 'blackout',
    async preReceive(alert, ctx) {
      if (!config.NOTIFICATION_BLACKOUT && config.BLACKOUT_ACCEPT.includes(alert.severity)) return;
      if (!(await findActiveBlackout(ctx.deps, alert))) return;
      if (!config.NOTIFICATION_BLACKOUT)
        throw new PluginSignal(202, 'Suppressed alert during blackout period', { id: alert.id });
      alert.status = suppressed;
    },
  };
};

/** acked_by: who acknowledged, as attribute `acked-by` and tag `watch:<login>`; cleared on unack or re-open. */
const ackedBy: PluginFactory = () => ({
  name: 'acked_by',
  statusChange(alert, status, text) {
    if (status === 'open' && alert.attributes['acked-by'] !== undefined)
      return { status, text, changes: { attributes: { 'acked-by': null } } };
  },
  takeAction(alert, action, text, timeout, ctx) {
    const login = ctx.request.user;
    if (action === 'ack' && login) {
      return {
        changes: { tags: [...new Set([...alert.tags, `watch:${login}`])], attributes: { 'acked-by': login } },
      };
    }
    if (action === 'unack') return { changes: { attributes: { 'acked-by': null } } };
  },
});

/** escalate: the custom action `escalate` raises the severity one level. */
const escalate: PluginFactory = ({ config }) => {
  const model = createAlarmModel(config);
  const byRank = Object.keys(model.severity).sort((a, b) => model.severityRank(a) - model.severityRank(b));
  return {
    name: 'escalate',
    takeAction(alert, action, text) {
      if (action !== 'escalate') return;
      const rank = model.severityRank(alert.severity);
      const next = byRank.filter((s) => model.severityRank(s) < rank).at(-1);
      if (!next) throw conflict(`Can not escalate alert severity beyond "${alert.severity}".`);
      const higher = byRank.find((s) => model.severityRank(s) === model.severityRank(next)) ?? next;
      return {
        text: text === 'escalate operator action' ? 'alert severity escalated' : text,
        changes: { severity: higher },
      };
    },
  };
};

/** timeout: ack and shelve always use the server's ACK_TIMEOUT / SHELVE_TIMEOUT. */
const timeout: PluginFactory = ({ config }) => ({
  name: 'timeout',
  takeAction(_alert, action, text, requested) {
    const server = action === 'ack' ? config.ACK_TIMEOUT : action === 'shelve' ? config.SHELVE_TIMEOUT : null;
    if (server === null) return;
    const note = requested !== null && requested !== server ? ' (using server timeout value)' : '';
    return { text: `${text}${note}`, timeout: server };
  },
});

/** normalise (contrib): `SEVERITY: text`, group Misc → Unknown, empty value → `--`. */
const normalise: PluginFactory = () => ({
  name: 'normalise',
  preReceive(alert) {
    alert.text = `${alert.severity.toUpperCase()}: ${alert.text}`;
    if (!alert.group || alert.group === 'Misc') alert.group = 'Unknown';
    if (!alert.value || alert.value === 'n/a') alert.value = '--';
  },
});

/** enhance (contrib): isOutOfHours on weekends, a run-book URL per event. */
const enhance: PluginFactory = () => ({
  name: 'enhance',
  preReceive(alert) {
    const day = new Date(alert.createTime).getUTCDay();
    alert.attributes.isOutOfHours = day === 0 || day === 6;
    alert.attributes.runBookUrl = `http://www.example.com/wiki/RunBook/${alert.event.replace(/ /g, '-')}`;
  },
});

/** forwarder: federation arrives with issue #10; until then it forwards nothing. */
const forwarder: PluginFactory = () => ({ name: 'forwarder' });

export const BUILTIN_PLUGINS: Readonly<Record<string, PluginFactory>> = {
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
};
