import { redactUrl, type Config } from './config.ts';

/** The first `code` (PostgreSQL SQLSTATE or Node errno) along an error's `cause` chain. */
function findCode(err: unknown): { code: string; error: Error } | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return { code, error: e };
  }
  return null;
}

/** Where the database is, as the start-up line says it (password hidden). */
function databaseOf(config: Config): string {
  if (!config.DATABASE_URL) return `the embedded PostgreSQL under DATA_DIR (${config.DATA_DIR})`;
  try {
    const u = new URL(config.DATABASE_URL);
    if (config.DATABASE_NAME) u.pathname = `/${encodeURIComponent(config.DATABASE_NAME)}`;
    return `PostgreSQL at ${redactUrl(u.toString())}`;
  } catch {
    return 'the PostgreSQL of DATABASE_URL';
  }
}

/** The database name and the schema, for the commands the explanations suggest. */
function namesOf(config: Config): { name: string; schema: string } {
  let name = config.DATABASE_NAME || 'postgres';
  try {
    if (config.DATABASE_URL && !config.DATABASE_NAME) {
      name = decodeURIComponent(new URL(config.DATABASE_URL).pathname.slice(1)) || 'postgres';
    }
  } catch {
    // an unparseable URL fails earlier, in the settings
  }
  return { name, schema: config.DATABASE_SCHEMA };
}

/** Where a connection failed, and whether that is the server a URL names (by port, else by host). */
function endpointOf(error: Error) {
  const e = error as { address?: string; hostname?: string; port?: number };
  const host = e.address ?? e.hostname;
  return {
    name: e.port === undefined ? (host ?? 'the address given') : `${host}:${e.port}`,
    matches(url: string, defaultPort: number): boolean {
      try {
        const u = new URL(url);
        return e.port !== undefined ? e.port === Number(u.port || defaultPort) : host === u.hostname;
      } catch {
        return false;
      }
    },
  };
}

/**
 * The text after "cannot start: " for a failure during boot: what is missing or wrong, and what
 * to do about it (docs/operations.md "Start-up"). Errors that already say so pass unchanged.
 * Tests: tests/api/startup-truncated.test.ts ("start-up failures").
 */
export function explainStartupError(err: unknown, config: Config): string {
  const message = err instanceof Error ? err.message : String(err);
  const found = findCode(err);
  const { name, schema } = namesOf(config);
  const database = databaseOf(config);
  if (!found) {
    if (err instanceof Error && err.name === 'NotFoundError') {
      const table = /\bFROM\s+([a-z_]+)/i.exec(String((err as { sql?: unknown }).sql ?? ''))?.[1];
      return (
        `a row the server needs at start is missing${table ? ` from table ${table}` : ''} in ${database}. ` +
        'Start-up re-creates the rows it knows of; this one it does not: restore the table from a ' +
        'backup, or empty the data tables (TRUNCATE of all but schema_migrations) and start again'
      );
    }
    return message;
  }
  const { code, error } = found;
  const pgMessage = error.message;
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH': {
      const at = endpointOf(error);
      if (config.REDIS_URL && at.matches(config.REDIS_URL, 6379)) {
        return `cannot reach Redis at ${redactUrl(config.REDIS_URL)} (${pgMessage}): start Redis, or fix REDIS_URL`;
      }
      if (!config.DATABASE_URL || at.matches(config.DATABASE_URL, 5432)) {
        return (
          `cannot reach ${database} (${pgMessage}): start PostgreSQL, or fix DATABASE_URL ` +
          '(without DATABASE_URL the server runs an embedded PostgreSQL of its own)'
        );
      }
      // Something else the settings name (an identity provider, a plugin's service).
      return (
        `${message === pgMessage ? message : `${message} (${pgMessage})`}: ` +
        `nothing answers at ${at.name}; start it, or fix the setting that names it`
      );
    }
    case '3D000':
      return `${pgMessage} (${database}): create it (createdb ${name}), or fix DATABASE_URL / DATABASE_NAME`;
    case '3F000':
      return `${pgMessage} (${database}): create it (CREATE SCHEMA ${schema}), or fix DATABASE_SCHEMA`;
    case '28P01':
    case '28000':
      return `${pgMessage} (${database}): fix the user and password in DATABASE_URL, or the server's pg_hba.conf`;
    case '42501':
      return (
        `${pgMessage} (${database}): the user of DATABASE_URL must own schema ${schema} and its tables, ` +
        `or be granted them (GRANT ALL ON SCHEMA ${schema} TO that user; GRANT ALL ON ALL TABLES IN ` +
        `SCHEMA ${schema} TO that user)`
      );
    case '42P01':
    case '42883':
      return (
        `${pgMessage} in ${database}, although schema_migrations records every migration as applied: ` +
        'it was dropped by hand. Restore it from a backup; or, to start with an empty system, ' +
        `DROP SCHEMA ${schema} CASCADE and start again (migrations re-create every table)`
      );
    case '42P07':
    case '42710':
      return (
        `${pgMessage} while migrating ${database}: the tables exist but schema_migrations does not ` +
        'record them (it was emptied or dropped). Restore schema_migrations from a backup; or, to start ' +
        `with an empty system, DROP SCHEMA ${schema} CASCADE and start again. To empty the data only, ` +
        'TRUNCATE every table but schema_migrations'
      );
    case '53300':
      return `${pgMessage} (${database}): lower DATABASE_POOL_SIZE, or raise the server's max_connections`;
    case 'EADDRINUSE':
      return `port ${config.PORT} on ${config.HOST} is already in use: stop the other process, or set PORT`;
    case 'EACCES':
    case 'EPERM':
      if ((error as NodeJS.ErrnoException).syscall === 'listen') {
        return `not allowed to listen on port ${config.PORT} on ${config.HOST}: choose PORT 1024 or above, or grant the capability to bind it`;
      }
      return `${pgMessage}: the server's user may not use this path; fix its owner or permissions, or set DATA_DIR`;
    default:
      return message;
  }
}
