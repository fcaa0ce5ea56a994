/**
 * The `curl --aws-sigv4` line `npm run local` prints, built in one place so the conformance
 * suite runs exactly the line a user copies (test/conformance/api-gateway.test.ts).
 */
import { LOCAL_CALLER } from '../lab-defaults';

/** What the line needs of a route: its method and path template. */
export interface ExampleRoute {
  readonly method: string;
  readonly path: string;
}

/** The GovId the printed example reads. */
export const EXAMPLE_GOV_ID = 'AB-1';

/**
 * A shell line that reads one Person through the local API, SigV4-signed by curl itself with
 * the lab's caller: the first GET route with a path parameter (the get function), else the
 * first GET route. Undefined when the API has no GET route.
 */
export function curlSigV4Example(apiUrl: string, routes: readonly ExampleRoute[]): string | undefined {
  const gets = routes.filter((r) => r.method === 'GET');
  const route = gets.find((r) => /\{\w+\}/.test(r.path)) ?? gets[0];
  if (!route) return undefined;
  const path = route.path.replace(/\{\w+\+?\}/g, EXAMPLE_GOV_ID);
  const { accessKeyId, secretAccessKey, region } = LOCAL_CALLER;
  return `curl --aws-sigv4 "aws:amz:${region}:execute-api" --user ${accessKeyId}:${secretAccessKey} ${apiUrl}${path}`;
}
