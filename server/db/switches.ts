import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const SwitchRowSchema = z.object({ name: z.string(), isOn: z.boolean() });

/** The stored switch states (switches never set have no row). */
export async function readSwitches(db: CommonQueryMethods): Promise<Map<string, boolean>> {
  const rows = await db.any(sql.type(SwitchRowSchema)`SELECT name, is_on AS "isOn" FROM switches`);
  return new Map(rows.map((r) => [r.name, r.isOn]));
}

export async function writeSwitch(db: CommonQueryMethods, name: string, isOn: boolean, now: number) {
  await db.query(sql.unsafe`
    INSERT INTO switches (name, is_on, update_time) VALUES (${name}, ${isOn}, ${sql.timestamp(new Date(now))})
    ON CONFLICT (name) DO UPDATE SET is_on = EXCLUDED.is_on, update_time = EXCLUDED.update_time`);
}
