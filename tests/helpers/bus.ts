import type { LiveEvent } from '../../shared/events.ts';
import type { Bus } from '../../server/realtime/bus.ts';

/** The next bus event that `pick` accepts; rejects when none comes within `timeoutMs`. */
export function nextEvent(bus: Bus, pick: (e: LiveEvent) => boolean, timeoutMs = 5000): Promise<LiveEvent> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      off();
      fail(new Error('no matching event on the bus'));
    }, timeoutMs);
    const off = bus.subscribe((event) => {
      if (!pick(event)) return;
      clearTimeout(timer);
      off();
      ok(event);
    });
  });
}
