/**
 * A SAML 2.0 identity provider for tests: a key pair and self-signed certificate made with openssl,
 * its metadata, and responses whose assertions it signs (xml-crypto, as node-saml verifies them).
 * Nothing listens: the server only needs the metadata, and tests post the responses themselves.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedXml } from 'xml-crypto';

export interface KeyPair {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
  /** The certificate's base64 body, as metadata carries it. */
  certBody: string;
}

function readPair(keyFile: string, certFile: string): KeyPair {
  const cert = readFileSync(certFile, 'utf8');
  return {
    keyFile,
    certFile,
    key: readFileSync(keyFile, 'utf8'),
    cert,
    certBody: cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''),
  };
}

export interface AssertionOptions {
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string | string[]>;
  /** Who the assertion is for; the SP's entity id. */
  audience: string;
  /** The SP's assertion consumer URL. */
  acs: string;
  /** Validity window relative to now, in seconds (default -60 … +300). */
  notBefore?: number;
  notOnOrAfter?: number;
  /** Sign with this key instead of the IdP's own (a forged response). */
  signWith?: KeyPair;
  unsigned?: boolean;
}

export interface TestSamlIdp {
  entityId: string;
  ssoUrl: string;
  keys: KeyPair;
  metadataFile: string;
  dir: string;
  /** A base64 SAMLResponse, as the IdP's auto-posting form would send it. */
  response(options: AssertionOptions): string;
  /** Another key pair made in the same directory (the SP's, or a forger's). */
  makeKeyPair(name: string): KeyPair;
  cleanup(): void;
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const iso = (secondsFromNow: number) => new Date(Date.now() + secondsFromNow * 1000).toISOString();

export function createSamlIdp(ssoUrl = 'https://idp.example.test/sso/redirect'): TestSamlIdp {
  const dir = mkdtempSync(join(tmpdir(), 'saml-idp-'));
  const gen = (name: string) => {
    const keyFile = join(dir, `${name}-key.pem`);
    const certFile = join(dir, `${name}-cert.pem`);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    return readPair(keyFile, certFile);
  };
  const keys = gen('idp');
  const entityId = 'https://idp.example.test/metadata';
  const metadataFile = join(dir, 'idp-metadata.xml');
  writeFileSync(
    metadataFile,
    `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>${keys.certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`,
  );

  function response(o: AssertionOptions): string {
    const attrs = Object.entries(o.attributes ?? {})
      .map(
        ([name, v]) =>
          `<saml:Attribute Name="${xmlText(name)}">${(Array.isArray(v) ? v : [v])
            .map((x) => `<saml:AttributeValue>${xmlText(x)}</saml:AttributeValue>`)
            .join('')}</saml:Attribute>`,
      )
      .join('');
    const format = o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
    const until = iso(o.notOnOrAfter ?? 300);
    const assertion =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a${randomUUID()}" Version="2.0" IssueInstant="${iso(o.notBefore ?? -60)}">` +
      `<saml:Issuer>${entityId}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="${format}">${xmlText(o.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${o.acs}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${iso(o.notBefore ?? -60)}" NotOnOrAfter="${until}">` +
      `<saml:AudienceRestriction><saml:Audience>${xmlText(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(-5)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
      `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
      `</saml:AuthnContext></saml:AuthnStatement>` +
      (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : '') +
      `</saml:Assertion>`;
    const xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${o.acs}">` +
      `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${entityId}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      assertion +
      `</samlp:Response>`;
    if (o.unsigned) return Buffer.from(xml).toString('base64');
    const signer = o.signWith ?? keys;
    const sig = new SignedXml({
      privateKey: signer.key,
      publicCert: signer.cert,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    sig.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: [
        'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
        'http://www.w3.org/2001/10/xml-exc-c14n#',
      ],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    sig.computeSignature(xml, {
      prefix: 'ds',
      location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
    });
    return Buffer.from(sig.getSignedXml()).toString('base64');
  }

  return {
    entityId,
    ssoUrl,
    keys,
    metadataFile,
    dir,
    response,
    makeKeyPair: gen,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
