import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { SAML } from '@node-saml/node-saml';
import type * as Xmldom from '@xmldom/xmldom';
import type { Config } from '../../config.ts';
import { samlMetadataSources } from '../../config/checks.ts';
import type { ExternalIdentity } from '../external-users.ts';
import { appError } from '../../errors.ts';
import { cleanText, isObject, namesIn } from './provider-http.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

/** What the identity provider's metadata says about it. */
export interface IdpInfo {
  entityId: string;
  ssoUrl: string;
  binding: typeof REDIRECT | typeof POST;
  /** Signing certificates, PEM. */
  certs: string[];
}

export interface Saml {
  sp: SAML;
  idp: IdpInfo;
  /** The identity provider's origin: it may post to /auth/saml (CORS, docs/auth-sso.md). */
  idpOrigin: string;
  /** This server's SAML metadata (GET /auth/saml/metadata.xml). */
  metadata: string;
}

/** Parses XML, refusing anything that is not well-formed (xmldom only reports by default). */
export function parseXml(xml: string): Document {
  const fail = (msg: string) => {
    throw new Error(msg.split('\n')[0]);
  };
  // Loaded on first use, as node-saml below: a server without SAML never holds them (about 4 MB of
  // heap; docs/benchmarks.md, "Memory").
  const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as typeof Xmldom;
  return new DOMParser({ errorHandler: { error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
}

const pemOf = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64
    .replace(/\s+/g, '')
    .replace(/(.{64})/g, '$1\n')
    .trim()}\n-----END CERTIFICATE-----\n`;

/** Elements by namespace and local name (xmldom's node lists are not iterable). */
function elements(parent: Document | Element, ns: string, name: string): Element[] {
  const list = parent.getElementsByTagNameNS(ns, name);
  return Array.from({ length: list.length }, (_, i) => list.item(i)!);
}

/** The first identity provider in a metadata document: entity id, single sign-on URL, signing certificates. */
export function parseIdpMetadata(xml: string): IdpInfo {
  const idp = elements(parseXml(xml), MD, 'IDPSSODescriptor')[0];
  if (!idp) throw new Error('no IDPSSODescriptor');
  const entityId = (idp.parentNode as Element | null)?.getAttribute('entityID');
  if (!entityId) throw new Error('no entityID');
  const services = elements(idp, MD, 'SingleSignOnService');
  const service =
    services.find((s) => s.getAttribute('Binding') === REDIRECT) ??
    services.find((s) => s.getAttribute('Binding') === POST);
  const ssoUrl = service?.getAttribute('Location');
  if (!service || !ssoUrl)
    throw new Error('no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  const certs = elements(idp, MD, 'KeyDescriptor')
    .filter((k) => k.getAttribute('use') !== 'encryption')
    .flatMap((k) => elements(k, DS, 'X509Certificate'))
    .map((c) => pemOf(c.textContent ?? ''));
  for (const cert of certs) new X509Certificate(cert); // throws on a certificate that does not parse
  if (certs.length === 0) throw new Error('no signing certificate (KeyDescriptor)');
  return { entityId, ssoUrl, binding: service.getAttribute('Binding') as IdpInfo['binding'], certs };
}

async function metadataText(config: Config): Promise<string> {
  const { files, urls, inline } = samlMetadataSources(config);
  if (inline[0]) return inline[0];
  if (files[0]) return readFile(files[0], 'utf8');
  const url = urls[0]!;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  return res.text();
}

/**
 * The SAML service provider of this server, from SAML2_CONFIG (the identity provider's metadata,
 * our key_file and cert_file), SAML2_ENTITY_ID and BASE_URL. Throws a message fit for a start-up error.
 */
export async function loadSaml(config: Config): Promise<Saml> {
  let idp: IdpInfo;
  try {
    idp = parseIdpMetadata(await metadataText(config));
  } catch (err) {
    throw new Error(`SAML2_CONFIG: cannot use the identity provider's metadata: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const { key_file: keyFile, cert_file: certFile } = config.SAML2_CONFIG;
  const key = keyFile ? await readFile(keyFile, 'utf8') : undefined;
  const cert = certFile ? await readFile(certFile, 'utf8') : undefined;
  const base = config.BASE_URL.replace(/\/+$/, '');
  // As the established server: BASE_URL exactly as configured, so identity providers set up for it
  // (audience, entity id) keep working.
  const entityId = config.SAML2_ENTITY_ID || config.BASE_URL;
  const { SAML } = await import('@node-saml/node-saml');
  const sp = new SAML({
    entryPoint: idp.ssoUrl,
    authnRequestBinding: idp.binding === POST ? 'HTTP-POST' : 'HTTP-Redirect',
    issuer: entityId,
    audience: entityId,
    callbackUrl: `${base}/auth/saml`,
    idpCert: idp.certs,
    idpIssuer: idp.entityId,
    // As the established server: assertions must be signed, the envelope need not be, and
    // logins the identity provider starts (no request of ours to answer) are accepted.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    acceptedClockSkewMs: 60_000,
    ...(key ? { privateKey: key, decryptionPvk: key, signatureAlgorithm: 'sha256' as const } : {}),
    ...(cert ? { publicCert: cert } : {}),
  });
  const metadata = sp.generateServiceProviderMetadata(cert ?? null, cert ?? null);
  return { sp, idp, idpOrigin: new URL(idp.ssoUrl).origin, metadata };
}

/** `{givenName} {surname}`-style templates over the first value of each attribute; unknown names are empty. */
function render(template: string, attrs: Record<string, unknown>): string {
  return template.replace(/\{([^{}]+)\}/g, (_, name: string) => namesIn(attrs[name])[0] ?? '').trim();
}

/**
 * Who a verified SAML assertion says signed in (auth.md §12): user keyed by email (the
 * SAML2_EMAIL_ATTRIBUTE attribute), login = the subject's NameID (the email when the NameID is
 * transient, i.e. different at every login), groups from the `groups` attribute.
 */
export function identityOfProfile(config: Config, profile: Record<string, unknown>): ExternalIdentity {
  const attrs = isObject(profile.attributes) ? profile.attributes : {};
  const nameId = cleanText(profile.nameID);
  const email =
    namesIn(attrs[config.SAML2_EMAIL_ATTRIBUTE])[0] ??
    cleanText(profile.email) ??
    (nameId?.includes('@') ? nameId : null);
  if (!email) throw appError('saml_no_email', config.SAML2_EMAIL_ATTRIBUTE);
  const login = (profile.nameIDFormat !== TRANSIENT && nameId) || email;
  return {
    provider: 'saml2',
    subject: email.toLowerCase(),
    login,
    name: render(config.SAML2_USER_NAME_FORMAT, attrs) || login,
    email,
    emailVerified: true,
    roles: [],
    groups: namesIn(attrs.groups),
    linkByEmail: true,
    text: 'SAML2 user',
  };
}

/** What the sign-in popup hands to the window that opened it, as the established web UI expects. */
export type HandBack = { status: 'ok'; token: string } | { status: 'error'; message: string };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON that cannot end the script element it sits in. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The page the identity provider's form post lands on: it posts the result to the window that
 * opened the popup, but only to `origin` (an origin the server trusts), then closes itself. The
 * Content-Security-Policy allows exactly this one script.
 */
export function handBackPage(result: HandBack, origin: string | null): { html: string; csp: string } {
  const text = result.status === 'ok' ? 'Signed in. You can close this window.' : result.message;
  const script = origin
    ? `if (window.opener) { window.opener.postMessage(${scriptJson(result)}, ${scriptJson(origin)}); window.close(); }`
    : '';
  const hash = createHash('sha256').update(script).digest('base64');
  const html =
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Authenticating...</title>\n' +
    (script ? `<script>${script}</script>\n` : '') +
    `</head>\n<body>\n<p>${escapeHtml(text)}</p>\n</body>\n</html>\n`;
  return { html, csp: `default-src 'none'; script-src 'sha256-${hash}'` };
}
