import type { PluginFactory } from './types.ts';

/**
 * timeout: ack and shelve always use the server's ACK_TIMEOUT / SHELVE_TIMEOUT; when that
 * overrides a different value the operator gave, the text says so.
 */
const timeout: PluginFactory = ({ config }) => ({
  name: 'timeout',
  takeAction(_alert, action, text, requested) {
    const server = action === 'ack' ? config.ACK_TIMEOUT : action === 'shelve' ? config.SHELVE_TIMEOUT : null;
    if (server === null) return;
    const overridden = requested !== null && requested !== server;
    return { text: overridden ? `${text} (using server timeout value)` : text, timeout: server };
  },
});

export default timeout;
