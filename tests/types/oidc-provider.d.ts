// oidc-provider ships no types; this is the part of it tests/helpers/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }
  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export interface KoaContextWithOIDC {
    oidc: {
      client?: { clientId: string };
      session?: { accountId?: string };
      requestParamScopes: Set<string>;
      provider: Provider;
    };
  }
  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: new (init: { clientId: string; accountId: string }) => GrantInstance;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(
      req: IncomingMessage,
      res: ServerResponse,
    ): Promise<{ uid: string; params: Record<string, unknown> }>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
  export default Provider;
}
