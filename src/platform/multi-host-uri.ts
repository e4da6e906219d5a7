import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';

/**
 * A PostgreSQL connection URI read the way libpq reads it (`pg` knows neither several hosts nor
 * target_session_attrs, and treats sslmode=require as verify-full): the hosts in order, each with its port,
 * and the parameters with libpq's defaults — the PG* environment, then the OS user, database = user.
 */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
export type SessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby';

export interface HostAddress {
  host: string;
  port: number;
  /** `hostaddr`: the numeric address to connect to; `host` still names the server for TLS. */
  hostaddr?: string;
}

export interface ConnectionSpec {
  hosts: HostAddress[];
  user: string;
  password?: string;
  database: string;
  sslmode: SslMode;
  sslrootcert?: string;
  sslcert?: string;
  sslkey?: string;
  sslsni: boolean;
  targetSessionAttrs: SessionAttrs;
  loadBalance: boolean;
  /** Seconds per host, as libpq's connect_timeout (0 = wait as long as the OS does; libpq uses at least 2). */
  connectTimeout: number;
  applicationName?: string;
  options?: string;
  keepalives: boolean;
  keepalivesIdle?: number;
}

const SSL_MODES: SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const SESSION_ATTRS: SessionAttrs[] = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];
// libpq keywords that change nothing for a client on TCP with password or certificate authentication.
const INERT = new Set(['client_encoding', 'gssencmode', 'sslcompression', 'krbsrvname', 'gsslib', 'gssdelegation', 'sslnegotiation',
  'fallback_application_name', 'keepalives_interval', 'keepalives_count', 'tcp_user_timeout', 'channel_binding', 'ssl_min_protocol_version',
  'ssl_max_protocol_version', 'sslpassword']);
const HANDLED = new Set(['host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslsni',
  'target_session_attrs', 'load_balance_hosts', 'connect_timeout', 'application_name', 'options', 'keepalives', 'keepalives_idle']);

export class ConnectionUriError extends Error {}

function decode(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new ConnectionUriError(`DATABASE_URL: invalid percent-encoding in the ${what}`);
  }
}

/** `[::1]:5432`, `h:5432`, `h`, `` (the default host) — one entry of the comma-separated host list. */
function splitHostPort(entry: string): { host: string; port: string } {
  if (entry.startsWith('[')) {
    const end = entry.indexOf(']');
    if (end < 0) throw new ConnectionUriError('DATABASE_URL: unterminated IPv6 address');
    const rest = entry.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) throw new ConnectionUriError(`DATABASE_URL: unexpected "${rest}" after an IPv6 address`);
    return { host: entry.slice(1, end), port: rest.slice(1) };
  }
  const colon = entry.lastIndexOf(':');
  return colon < 0 ? { host: decode(entry, 'host'), port: '' } : { host: decode(entry.slice(0, colon), 'host'), port: entry.slice(colon + 1) };
}

function parsePort(text: string, env: NodeJS.ProcessEnv): number {
  const value = text === '' ? (env.PGPORT || '5432') : text;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) throw new ConnectionUriError(`DATABASE_URL: invalid port "${value}"`);
  return n;
}

/** libpq's default host: the Unix socket directory (Debian's, else the upstream default). */
const defaultHost = (env: NodeJS.ProcessEnv): string => env.PGHOST || (existsSync('/var/run/postgresql') ? '/var/run/postgresql' : '/tmp');

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new ConnectionUriError(`DATABASE_URL: invalid ${name} "${value}" (one of ${allowed.join(', ')})`);
  return value as T;
}

export function parseConnectionUri(uri: string, env: NodeJS.ProcessEnv = process.env): ConnectionSpec {
  const m = /^postgres(?:ql)?:\/\/([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/.exec(uri);
  if (!m) throw new ConnectionUriError('DATABASE_URL: not a postgres:// or postgresql:// URI');
  const [, , path, query = ''] = m;
  let authority = m[1] ?? '';
  const params = new Map<string, string>();
  for (const pair of query.split('&').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new ConnectionUriError(`DATABASE_URL: missing "=" in the parameter "${pair}"`);
    let key = decode(pair.slice(0, eq), 'parameters');
    let value = decode(pair.slice(eq + 1), 'parameters');
    if (key === 'ssl' && value === 'true') [key, value] = ['sslmode', 'require']; // libpq's JDBC compatibility
    if (!HANDLED.has(key) && !INERT.has(key)) throw new ConnectionUriError(`DATABASE_URL: unsupported parameter "${key}"`);
    params.set(key, value);
  }

  const at = authority.lastIndexOf('@');
  let user: string | undefined;
  let password: string | undefined;
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = userinfo.indexOf(':');
    user = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user') || undefined;
    if (colon >= 0) password = decode(userinfo.slice(colon + 1), 'password');
  }
  user = params.get('user') || user || env.PGUSER || userInfo().username;
  password = params.get('password') ?? password ?? env.PGPASSWORD;

  // The URI's host list, unless the host/port parameters override it (then comma lists, as in key=value form).
  let entries = authority === '' ? [] : authority.split(',').map(splitHostPort);
  if (params.has('host')) entries = params.get('host')!.split(',').map((host) => ({ host, port: '' }));
  if (entries.length === 0) entries = [{ host: '', port: '' }];
  if (params.has('port')) {
    const ports = params.get('port')!.split(',');
    if (ports.length !== 1 && ports.length !== entries.length) throw new ConnectionUriError(`DATABASE_URL: ${ports.length} ports for ${entries.length} hosts`);
    entries = entries.map((e, i) => ({ ...e, port: ports[ports.length === 1 ? 0 : i]! }));
  }
  const hostaddrs = params.get('hostaddr')?.split(',');
  if (hostaddrs && hostaddrs.length !== entries.length) throw new ConnectionUriError(`DATABASE_URL: ${hostaddrs.length} hostaddr for ${entries.length} hosts`);
  const hosts = entries.map((e, i) => ({
    host: e.host || (hostaddrs?.[i] ?? defaultHost(env)),
    port: parsePort(e.port, env),
    ...(hostaddrs?.[i] ? { hostaddr: hostaddrs[i] } : {}),
  }));

  const sslmode = oneOf(params.get('sslmode') ?? env.PGSSLMODE ?? 'prefer', SSL_MODES, 'sslmode');
  const timeout = params.get('connect_timeout') ?? env.PGCONNECT_TIMEOUT ?? '0';
  if (!/^\d+$/.test(timeout)) throw new ConnectionUriError(`DATABASE_URL: invalid connect_timeout "${timeout}"`);
  const idle = params.get('keepalives_idle');
  return {
    hosts,
    user,
    ...(password !== undefined ? { password } : {}),
    database: params.get('dbname') || decode(path ?? '', 'database name') || env.PGDATABASE || user,
    sslmode,
    ...optional('sslrootcert', params.get('sslrootcert') ?? env.PGSSLROOTCERT),
    ...optional('sslcert', params.get('sslcert') ?? env.PGSSLCERT),
    ...optional('sslkey', params.get('sslkey') ?? env.PGSSLKEY),
    sslsni: (params.get('sslsni') ?? '1') !== '0',
    targetSessionAttrs: oneOf(params.get('target_session_attrs') ?? env.PGTARGETSESSIONATTRS ?? 'any', SESSION_ATTRS, 'target_session_attrs'),
    loadBalance: oneOf(params.get('load_balance_hosts') ?? env.PGLOADBALANCEHOSTS ?? 'disable', ['disable', 'random'], 'load_balance_hosts') === 'random',
    // libpq: a timeout of 1 second is raised to 2, since it could expire before anything happens.
    connectTimeout: Number(timeout) === 1 ? 2 : Number(timeout),
    ...optional('applicationName', params.get('application_name') ?? env.PGAPPNAME),
    ...optional('options', params.get('options') ?? env.PGOPTIONS),
    keepalives: params.get('keepalives') !== '0',
    ...(idle !== undefined && /^\d+$/.test(idle) ? { keepalivesIdle: Number(idle) } : {}),
  };
}

const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  (value ? { [key]: value } : {}) as Partial<Record<K, string>>;
