import type { PluginFactory } from './types.ts';

const ACKED_BY = 'acked-by';

/**
 * acked_by: an ack by a known login records it as attribute `acked-by` and watches the alert
 * (tag `watch:<login>`); unack, or any change back to `open`, removes the attribute.
 */
const ackedBy: PluginFactory = () => ({
  name: 'acked_by',
  statusChange(alert, status) {
    if (status === 'open' && Object.hasOwn(alert.attributes, ACKED_BY)) {
      return { changes: { attributes: { [ACKED_BY]: null } } };
    }
  },
  takeAction(alert, action, _text, _timeout, ctx) {
    const login = ctx.request.user;
    if (action === 'ack' && login) {
      const watch = `watch:${login}`;
      return {
        changes: {
          tags: alert.tags.includes(watch) ? alert.tags : [...alert.tags, watch],
          attributes: { [ACKED_BY]: login },
        },
      };
    }
    if (action === 'unack') return { changes: { attributes: { [ACKED_BY]: null } } };
  },
});

export default ackedBy;
