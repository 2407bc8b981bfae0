/**
 * The notification load of scripts/bench/ingest.ts and side-by-side.ts: a webhook receiver `bench`
 * at `hookUrl`, `rules - 1` rules that never match the bench's alerts (each still evaluated), and
 * one rule named every-production-alert, in the environment given, that the bench's alerts match.
 */
export async function addBenchRules(
  api: string,
  rules: number,
  hookUrl: string,
  matching: { environment: string; groupWait: number },
): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  await post('/notifications/receivers', { name: 'bench', type: 'webhook', settings: { url: hookUrl } });
  for (let k = 1; k < rules; k++) {
    await post('/notifications/rules', {
      name: `miss-${k}`,
      environment: `Staging|Dev-${k}`,
      event: `(disk|cpu)_${k}.*`,
      minSeverity: 'major',
      tags: [`team=${k}`],
      receivers: ['bench'],
    });
  }
  await post('/notifications/rules', {
    name: 'every-production-alert',
    environment: matching.environment,
    service: 'net.*',
    receivers: ['bench'],
    groupWait: matching.groupWait,
  });
}
