import autocannon from 'autocannon';

/** autocannon POSTing JSON bodies (the ingest benches' load): `options` name the target, the load and the bodies. */
export const postJson = (options: autocannon.Options) =>
  autocannon({ method: 'POST', headers: { 'content-type': 'application/json' }, ...options });
