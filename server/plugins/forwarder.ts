import type { PluginFactory } from './types.ts';

/** forwarder: federation to FWD_DESTINATIONS arrives with issue #10; until then it has no hooks. */
const forwarder: PluginFactory = ({ log }) => {
  log.debug({ plugin: 'forwarder' }, 'plugin.forwarder: not implemented yet, forwards nothing');
  return { name: 'forwarder' };
};

export default forwarder;
