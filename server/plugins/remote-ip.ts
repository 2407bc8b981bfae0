import type { PluginFactory } from './types.ts';

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; the established server reports a.b.c.d. */
const plainAddress = (ip: string) => ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/** remote_ip: attribute `ip` = the first X-Forwarded-For address, else the socket peer. */
const remoteIp: PluginFactory = () => ({
  name: 'remote_ip',
  preReceive(alert, ctx) {
    const forwarded = ctx.request.header('X-Forwarded-For').split(',')[0]?.trim();
    alert.attributes.ip = forwarded || plainAddress(ctx.request.ip);
  },
});

export default remoteIp;
