/**
 * The error catalogue: every error the server answers with, by a stable snake_case code, with its
 * HTTP status and its message (a function where the message has parameters). The body keeps
 * Alerta's shape and adds the code as `errorCode`; messages are compared by tests and clients, so
 * an existing one never changes wording. docs/errors.md lists every code
 * (tests/unit/errors-catalogue.test.ts keeps the two in step, and `new AppError` out of other files).
 */
import { TIME_RANGE_MESSAGE } from '../shared/alerts.ts';

type Message = string | ((...args: never[]) => string);

const e = <M extends Message>(status: number, message: M) => ({ status, message });

const HTTP = {
  internal_error: e(500, 'An internal error has occurred!'),
  invalid_request: e(400, (problem: string) => problem),
  http_error: e(400, (message: string) => message),
  not_found: e(404, 'not found'),
  already_exists: e(409, 'already exists'),
  invalid_value: e(400, 'invalid value in request'),
  database_unavailable: e(503, 'The database is unavailable; try again shortly'),
  malformed_request: e(400, 'malformed HTTP request'),
  headers_too_large: e(431, 'request headers are too large'),
  url_not_found: e(404, 'The requested URL was not found on the server.'),
  url_too_long: e(414, (limit: number) => `request URL is longer than the limit of ${limit} characters`),
  method_not_allowed: e(
    405,
    (method: string) => `The method ${method} is not allowed for the requested URL.`,
  ),
  method_not_implemented: e(501, 'method not implemented'),
  body_too_large: e(413, (limit: number) => `request body is larger than the limit of ${limit} bytes`),
  unsupported_media_type: e(415, "POST and PUT requests must set 'Content-type' to 'application/json'"),
  unsupported_charset: e(415, (charset: string) => `unsupported charset '${charset}': use utf-8`),
  invalid_json: e(400, 'request body is not valid JSON'),
  invalid_json_value: e(400, (problem: string) => problem),
  request_aborted: e(400, 'request aborted'),
  unreadable_body: e(400, 'could not read the request body'),
  expected_object: e(400, 'expected a JSON object'),
  nothing_to_change: e(400, 'nothing to change'),
  missing_scope: e(403, (scope: string) => `Missing required scope: ${scope}`),
  server_stopping: e(503, 'the server is stopping'),
};

const QUERIES = {
  invalid_query: e(400, 'Failed to parse query string.'),
  invalid_regex: e(400, 'Invalid regular expression'),
  invalid_filter: e(400, (name: string) => `Invalid filter parameter: ${name}`),
  filter_not_like: e(400, (name: string) => `Invalid filter parameter: ${name} cannot be matched with ~`),
  invalid_filter_value: e(400, (label: string, raw: string) => `Invalid value for ${label}: '${raw}'`),
  filter_not_integer: e(
    400,
    (label: string, raw: string) => `Invalid value for ${label}: '${raw}' is not an integer`,
  ),
  filter_not_boolean: e(
    400,
    (label: string, raw: string) => `Invalid value for ${label}: '${raw}' is not a boolean`,
  ),
  invalid_date: e(400, 'dates must be ISO 8601 date format YYYY-MM-DDThh:mm:ss.sssZ'),
  date_out_of_range: e(400, TIME_RANGE_MESSAGE),
  invalid_sort: e(400, (name: string) => `Sorting by '${name}' field not supported.`),
  invalid_group_by: e(400, (name: string) => `Grouping by '${name}' field not supported.`),
  page_out_of_range: e(416, (pages: number) => `page out of range: 1-${pages}`),
  nul_in_query: e(400, 'query parameters must not contain NUL characters'),
  invalid_boolean_param: e(400, (name: string) => `${name} must be true or false`),
  invalid_integer_param: e(
    400,
    (name: string, min: number, max: number) => `${name} must be a whole number from ${min} to ${max}`,
  ),
  invalid_choice_param: e(
    400,
    (name: string, allowed: readonly string[]) => `${name} must be one of ${allowed.join(', ')}`,
  ),
  invalid_default_field: e(400, (field: string) => `Invalid default field '${field}'`),
  unknown_query_field: e(400, (field: string) => `Unknown field '${field}' in query`),
  attributes_need_key: e(400, 'Use attributes.<key> to search attributes'),
  field_not_regex: e(400, (label: string) => `${label} cannot be matched with a regular expression`),
  field_not_wildcard: e(400, (label: string) => `${label} cannot be matched with wildcards`),
  field_not_range: e(400, (label: string) => `${label} cannot be compared with a range`),
  invalid_subscription: e(400, (problem: string) => problem),
};

const AUTH = {
  auth_required: e(401, 'Missing authorization API Key or Bearer Token'),
  bearer_required: e(401, 'Missing authorization Bearer token'),
  credentials_required: e(401, "must supply 'username' and 'password'"),
  invalid_credentials: e(400, 'Invalid credentials'),
  authorization_required: e(401, 'Authorization required'),
  invalid_login: e(401, 'Invalid username or password'),
  token_invalid: e(401, 'Token is invalid'),
  token_expired: e(401, 'Token has expired'),
  token_audience: e(401, 'Invalid audience'),
  token_user_missing: e(401, 'Token is invalid: its user does not exist'),
  credential_user_inactive: e(401, (login: string | null) => `User ${login} not active`),
  api_key_invalid: e(401, (value: string) => `API key parameter '${value.slice(0, 64)}' is invalid`),
  user_not_active: e(403, (login: string) => `User ${login} not active`),
  external_user_not_active: e(403, (login: string) => `User ${login} is not active`),
  user_not_authorized: e(403, (login: string) => `User ${login} is not authorized`),
  email_not_verified: e(403, 'email not verified'),
  basic_email_not_verified: e(401, 'email not verified'),
  unauthorized_domain: e(403, 'unauthorized domain'),
  no_customer_lookup: e(
    403,
    (login: string, groups: readonly string[]) =>
      `No customer lookup configured for user '${login}' or '${groups.join(', ')}'`,
  ),
  scope_not_held: e(
    403,
    (scope: string, held: readonly string[]) =>
      `Requested scope '${scope}' not in existing scopes: ${held.join(',')}`,
  ),
  too_many_logins: e(429, (wait: number) => `Too many failed login attempts; try again in ${wait} seconds`),
  signup_disabled: e(403, 'user signup is disabled'),
  auto_signup_disabled: e(403, 'user auto-signup is disabled'),
  local_only: e(
    403,
    (what: string, provider: string) =>
      `${what} is not supported with AUTH_PROVIDER '${provider}': accounts come from that provider`,
  ),
  hawk_invalid_header: e(401, (problem: string) => `Invalid Hawk header: ${problem}`),
  hawk_invalid_host: e(401, 'Invalid Host header'),
  hawk_invalid_forwarded_port: e(401, 'Invalid X-Forwarded-Port header'),
  hawk_invalid_target: e(401, 'Invalid request target'),
  hawk_unknown_credentials: e(401, 'Unknown Hawk credentials'),
  hawk_unsupported_algorithm: e(401, 'Unsupported Hawk algorithm'),
  hawk_bad_mac: e(401, 'Bad mac'),
  hawk_bad_hash: e(401, 'Bad payload hash'),
  hawk_stale_timestamp: e(401, 'Stale timestamp'),
  hawk_replayed_nonce: e(401, 'Replayed nonce'),
  ldap_username_without_domain: e(401, 'expected username with domain'),
  ldap_empty_password: e(401, 'password not allowed to be empty'),
  ldap_bind_failed: e(500, 'invalid ldap bind credentials'),
  ldap_ambiguous_search: e(500, (domain: string) => `invalid search query for domain "${domain}"`),
  ldap_unavailable: e(503, 'LDAP server unavailable'),
};

const SSO = {
  sso_not_enabled: e(
    400,
    (provider: string, configured: string) =>
      `login with ${provider} is not enabled (AUTH_PROVIDER is '${configured}')`,
  ),
  sso_not_implemented: e(
    501,
    (provider: string, advice: string) => `login with ${provider} is not implemented here: ${advice}`,
  ),
  sso_unknown_client: e(
    400,
    (clientId: string) => `clientId '${clientId.slice(0, 100)}' is not OAUTH2_CLIENT_ID`,
  ),
  sso_untrusted_origin: e(400, 'the page that asked to sign in is not on an origin CORS_ORIGINS lists'),
  saml_not_enabled: e(400, (configured: string) => `SAML is not enabled (AUTH_PROVIDER is '${configured}')`),
  saml_no_email: e(400, (attribute: string) => `the SAML assertion carries no '${attribute}' attribute`),
  provider_unreachable: e(
    503,
    (url: string) => `could not reach the identity provider at ${new URL(url).origin}`,
  ),
  provider_refused: e(401, (what: string, detail: string) => `${what} failed: ${detail}`),
  provider_not_json: e(502, (what: string) => `${what}: the identity provider did not answer with JSON`),
  provider_not_https: e(502, (what: string) => `${what}: the identity provider's endpoint is not https`),
  provider_no_subject: e(502, 'the identity provider named no subject (sub claim)'),
  github_profile_incomplete: e(502, 'GitHub sent a profile without login or id'),
  redirect_uri_invalid: e(400, 'redirectUri: expected a URL'),
  id_token_invalid: e(401, 'ID token is invalid'),
  userinfo_subject_mismatch: e(401, 'userinfo is about another subject than the ID token'),
  oidc_no_login_claim: e(
    400,
    "Must support one of the following OpenID claims: 'preferred_username', 'nickname' or 'email'",
  ),
};

const ADMIN = {
  login_taken: e(409, 'user with that login already exists'),
  email_taken: e(409, 'user with that email already exists'),
  login_of_other_user: e(409, (login: string) => `login '${login}' belongs to another user`),
  email_of_other_user: e(409, (email: string | null) => `email '${email}' belongs to another user`),
  login_missing: e(400, 'Missing mandatory value for login or email'),
  external_login_flow: e(400, (provider: string) => `must use ${provider} login flow to create new user`),
  user_attributes_over_limit: e(
    400,
    (over: string) => `the user's attributes would be over their limits: ${over}`,
  ),
  not_allowed_to_update: e(400, (fields: readonly string[]) => `not allowed to update: ${fields.join(', ')}`),
  group_name_taken: e(409, 'group with that name already exists'),
  invalid_user: e(400, 'invalid user'),
  invalid_scope: e(400, (scope: string) => `'${scope}' is not a valid Scope`),
  role_exists: e(409, (role: string) => `${role} role already exists`),
  permission_exists: e(409, (match: string) => `a permission for '${match}' already exists`),
  key_needs_user: e(400, "An API key must be associated with a 'user'. Retry with user credentials."),
  key_exists: e(409, 'an API key with that value already exists'),
  count_not_integer: e(400, 'count must be a whole number'),
  unknown_switch: e(400, (name: string) => `unknown switch '${name}'`),
  invalid_switch_state: e(400, (name: string) => `switch '${name}' must be ON or OFF`),
  invalid_housekeeping_param: e(400, (name: string) => `invalid '${name}' parameter`),
  housekeeping_busy: e(
    503,
    (seconds: number) =>
      `housekeeping is running on another instance and did not finish within ${seconds} s; try again later`,
  ),
  housekeeping_failed: e(500, 'housekeeping failed'),
};

const ALERTS = {
  alert_not_found: e(404, 'alert not found'),
  note_not_found: e(404, 'note not found'),
  customer_not_allowed: e(400, (customer: string) => `not allowed to set customer to '${customer}'`),
  customer_ambiguous: e(400, 'must define customer as more than one possibility'),
  unknown_severity: e(400, (problem: string) => problem),
  invalid_status: e(400, (status: string) => `invalid status '${status}'`),
  invalid_action: e(400, (action: string) => `invalid action '${action}'`),
  invalid_transition: e(409, (problem: string) => problem),
  alert_over_limit: e(400, (problem: string) => problem),
  alert_id_exists: e(409, (id: string) => `an alert with id '${id}' already exists`),
  alert_contended: e(503, 'the alert is changing too fast to de-duplicate; retry'),
  alert_delete_failed: e(500, 'failed to delete alert'),
  rejected: e(403, (reason: string) => reason),
  rate_limited: e(429, (reason: string) => reason),
  escalation_at_top: e(409, (severity: string) => `Can not escalate alert severity beyond "${severity}".`),
  plugin_failed: e(
    500,
    (hook: string, plugin: string, problem: string) =>
      `Error while running ${hook} plugin '${plugin}': ${problem}`,
  ),
  bulk_too_many: e(
    400,
    (limit: number) => `the selection matches more than BULK_QUERY_LIMIT (${limit}) alerts; narrow the query`,
  ),
  bulk_failed: e(400, 'failed to bulk set alert status'),
  blackout_end_before_start: e(400, 'endTime must not be before startTime'),
  blackout_too_long: e(400, (max: number) => `duration must be at most ${max} seconds`),
  invalid_heartbeat_status: e(400, (status: string) => `Invalid status: '${status}'`),
};

const NOTIFICATIONS = {
  receiver_not_found: e(404, 'receiver not found'),
  rule_not_found: e(404, 'rule not found'),
  invalid_notification: e(400, (problem: string) => problem),
  notification_name_taken: e(409, (what: string, name: string) => `a ${what} named '${name}' already exists`),
  made_from_settings: e(
    409,
    (what: string) => `${what} is made from the server's settings (PLUGINS); change the settings instead`,
  ),
  receiver_type_fixed: e(400, 'the type of a receiver cannot change; create a new receiver'),
  receiver_in_use: e(
    409,
    (receiver: string, rules: string) => `receiver '${receiver}' is used by rule ${rules}`,
  ),
  receiver_cannot_move: e(
    409,
    (receiver: string, rules: string, owner: string) =>
      `receiver '${receiver}' is named by rule ${rules}; it cannot move to ${owner}`,
  ),
};

const WEBHOOKS = {
  webhook_not_found: e(404, (name: string) => `Custom webhook '${name}' not found.`),
  webhook_failed: e(400, (problem: string) => problem),
  webhook_no_result: e(500, (name: string) => `webhook '${name}' returned neither alerts nor a reply`),
  webhook_invalid_alert: e(
    400,
    (webhook: string, where: string, problem: string) =>
      `webhook '${webhook}' made an invalid alert${where}: ${problem}`,
  ),
  invalid_payload: e(400, (source: string, problem: string) => `invalid ${source} payload: ${problem}`),
  no_alerts_in_payload: e(400, (source: string) => `no alerts in ${source} notification payload`),
  pagerduty_no_messages: e(400, 'no messages in PagerDuty data payload'),
  newrelic_legacy: e(400, 'New Relic Legacy Alerting is not supported'),
  telegram_unsupported_command: e(400, (command: string) => `Unsupported Telegram command '${command}'`),
  sns_no_notification: e(400, 'No SNS notification in payload'),
  sns_not_cloudwatch: e(400, 'SNS message is not a Cloudwatch notification'),
  slack_unsupported_action: e(400, 'Unsupported #slack action'),
  chat_alert_not_found: e(404, (source: string) => `alert not found for ${source} message`),
  msteams_invalid_alert_id: e(400, 'Missing/invalid alert_id'),
  msteams_invalid_action: e(400, 'Invalid action'),
  blackout_params_missing: e(412, 'Missing blackout params'),
};

/** Every error by its code. A code is never renamed or reused: clients may branch on it. */
export const ERRORS = {
  ...HTTP,
  ...QUERIES,
  ...AUTH,
  ...SSO,
  ...ADMIN,
  ...ALERTS,
  ...NOTIFICATIONS,
  ...WEBHOOKS,
};
/** The catalogue's parts, for the test that no code is declared twice (a spread would hide it). */
export const ERROR_GROUPS = [HTTP, QUERIES, AUTH, SSO, ADMIN, ALERTS, NOTIFICATIONS, WEBHOOKS];

export type ErrorCode = keyof typeof ERRORS;
type ArgsOf<C extends ErrorCode> = (typeof ERRORS)[C]['message'] extends (...args: infer A) => string
  ? A
  : [];

interface Extra {
  errors?: string[] | undefined;
  headers?: Record<string, string> | undefined;
}

/** An error whose message is safe to show to the client, with the HTTP status to answer. */
export class AppError extends Error {
  readonly errorCode: ErrorCode;
  readonly status: number;
  readonly errors: string[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(errorCode: ErrorCode, message: string, extra: Extra = {}) {
    super(message);
    this.errorCode = errorCode;
    this.status = ERRORS[errorCode].status;
    this.errors = extra.errors;
    this.headers = extra.headers;
  }

  /** The same error with a list of details (`errors` in the body) or response headers added. */
  with(extra: Extra): AppError {
    return new AppError(this.errorCode, this.message, {
      errors: this.errors,
      headers: this.headers,
      ...extra,
    });
  }
}

/** The catalogue's error `code`, its message made from `args`. */
export function appError<C extends ErrorCode>(code: C, ...args: ArgsOf<C>): AppError {
  const { message } = ERRORS[code];
  const text = typeof message === 'string' ? message : (message as (...a: unknown[]) => string)(...args);
  return new AppError(code, text);
}

export const methodNotAllowed = (method: string, allowed: string[]) =>
  appError('method_not_allowed', method).with({
    errors: [`allowed: ${allowed.join(', ')}`],
    headers: { Allow: allowed.join(', ') },
  });

/**
 * PostgreSQL could not compile a regular expression from a query (SQLSTATE 2201B): the same 400 as
 * the query checker's, in our words, never the database's. Null for any other error.
 */
export function invalidRegexFromDb(err: unknown): AppError | null {
  if ((err as { code?: unknown } | null)?.code !== '2201B') return null;
  return appError('invalid_regex').with({
    errors: ['the database could not compile a regular expression in the query'],
  });
}

/** Seconds a client is asked to wait (Retry-After) while the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5;
/** 503 for a database outage: a message of our own; the driver's detail (host, port) is only logged. */
export const databaseUnavailable = () =>
  appError('database_unavailable').with({ headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });

/** The 429 a caller gets while a login limit holds. */
export const tooManyLogins = (wait: number) =>
  appError('too_many_logins', wait).with({
    errors: [`retry after ${wait} seconds`],
    headers: { 'Retry-After': String(wait) },
  });
