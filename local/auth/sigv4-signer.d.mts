import type { HttpRequest } from '@smithy/protocol-http';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';

export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export declare const SERVICE: 'execute-api';
export declare function signerFor(credentials: AwsCredentialIdentity, region: string): SignatureV4;
export declare function toHttpRequest(r: SignableRequest, signingDate?: Date): HttpRequest;
export declare function signRequest(
  r: SignableRequest,
  credentials: AwsCredentialIdentity,
  region: string,
): Promise<Record<string, string>>;

export type Credentials = AwsCredentialIdentity;
