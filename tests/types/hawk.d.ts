// The hawk package ships no types; this is the part of it the tests use.
declare module 'hawk' {
  export interface Credentials {
    id: string;
    key: string;
    algorithm: 'sha1' | 'sha256';
  }
  export interface HeaderOptions {
    credentials: Credentials;
    ext?: string;
    timestamp?: number;
    nonce?: string;
    localtimeOffsetMsec?: number;
    payload?: string;
    contentType?: string;
    hash?: string;
  }
  export interface Artifacts {
    ts: number;
    nonce: string;
    method: string;
    resource: string;
    host: string;
    port: number | string;
    hash?: string;
    ext?: string;
  }
  const Hawk: {
    client: {
      header(uri: string, method: string, options: HeaderOptions): { header: string; artifacts: Artifacts };
    };
    crypto: {
      calculatePayloadHash(payload: string, algorithm: string, contentType?: string): string;
      calculateTsMac(ts: number, credentials: { key: string; algorithm: string }): string;
    };
    utils: {
      parseAuthorizationHeader(header: string, keys?: string[]): Record<string, string>;
    };
  };
  export default Hawk;
}
