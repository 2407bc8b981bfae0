import { sql, type CommonQueryMethods } from 'slonik';

/**
 * The rows the server relies on that no request creates: written by migrations or by the first
 * start, and gone when an operator empties the data tables (TRUNCATE of all but schema_migrations,
 * docs/operations.md "Start-up"). Every start puts back what is missing and leaves the rest alone.
 * Test: tests/api/startup-truncated.test.ts.
 */
export async function ensureRows(db: CommonQueryMethods): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO instance_info (key, value) VALUES ('installed_at', ${new Date().toISOString()})
    ON CONFLICT (key) DO NOTHING`);
  // The version of the notification settings (migration 0022); readers also take a missing row as 0.
  await db.query(sql.unsafe`
    INSERT INTO notification_config (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`);
}
