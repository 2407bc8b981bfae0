import { appError } from '../errors.ts';
import type { PluginFactory } from './types.ts';

/** Compiles a settings list of regular expressions once; an invalid one stops start-up naming the setting. */
function compile(setting: string, patterns: readonly string[], wrap: (p: string) => string): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(wrap(p));
    } catch (err) {
      throw new Error(`${setting}: '${p}' is not a valid regular expression (${(err as Error).message})`, {
        cause: err,
      });
    }
  });
}

/**
 * reject: refuses (403) alerts from a blacklisted origin (regex matched from the start, as
 * Python's re.match), from an environment no ALLOWED_ENVIRONMENTS regex fully matches, or
 * without a service.
 */
const reject: PluginFactory = ({ config }) => {
  const blacklist = compile('ORIGIN_BLACKLIST', config.ORIGIN_BLACKLIST, (p) => `^(?:${p})`);
  const environments = compile('ALLOWED_ENVIRONMENTS', config.ALLOWED_ENVIRONMENTS, (p) => `^(?:${p})$`);
  const allowedList = config.ALLOWED_ENVIRONMENTS.join(', ');
  return {
    name: 'reject',
    preReceive(alert) {
      if (blacklist.some((re) => re.test(alert.origin))) {
        throw appError('rejected', `[POLICY] Alert origin '${alert.origin}' has been blacklisted`);
      }
      if (!environments.some((re) => re.test(alert.environment))) {
        throw appError('rejected', `[POLICY] Alert environment does not match one of ${allowedList}`);
      }
      if (alert.service.length === 0) throw appError('rejected', '[POLICY] Alert must define a service');
    },
  };
};

export default reject;
