import type { PluginFactory } from './types.ts';

const RUN_BOOK_URL = 'http://www.example.com/wiki/RunBook';

/**
 * enhance (contrib): attribute `isOutOfHours` (Saturday or Sunday, UTC, of the create time — the
 * original's hour test can never be true) and a run-book link named after the event.
 */
const enhance: PluginFactory = () => ({
  name: 'enhance',
  preReceive(alert) {
    const day = new Date(alert.createTime).getUTCDay();
    alert.attributes.isOutOfHours = day === 0 || day === 6;
    alert.attributes.runBookUrl = `${RUN_BOOK_URL}/${alert.event.replaceAll(' ', '-')}`;
  },
});

export default enhance;
