"""Sends one request to the lab's API signed by botocore's own SigV4 signers, and reports what came back.

Usage: api_gateway_sigv4.py JSON, where JSON holds
  url, method, body (optional), region, service (default execute-api),
  access_key, secret_key, token (optional), mode ("header" for SigV4Auth, "query" for SigV4QueryAuth),
  expires (query mode, seconds, default 60),
  delay (seconds to wait between signing and sending, default 0),
  sign_host (default true; false signs every header but Host, through botocore's own headers_to_sign)
Prints one JSON document: {"status", "errortype", "body", "signed_headers"}.
The script signs and sends; it asserts nothing (the TypeScript test does).
"""

import json
import sys
import time

from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpsession import URLLib3Session


class SigV4AuthWithoutHost(SigV4Auth):
    """botocore's signer with Host left out of SignedHeaders, as a hand-rolled client might."""

    def headers_to_sign(self, request):
        headers = super().headers_to_sign(request)
        del headers["host"]
        return headers


def main() -> None:
    spec = json.loads(sys.argv[1])
    credentials = Credentials(spec["access_key"], spec["secret_key"], spec.get("token"))
    body = spec.get("body")
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = AWSRequest(method=spec["method"], url=spec["url"], data=body, headers=headers)
    service = spec.get("service", "execute-api")
    if spec.get("mode", "header") == "query":
        SigV4QueryAuth(credentials, service, spec["region"], expires=spec.get("expires", 60)).add_auth(request)
    else:
        signer = SigV4Auth if spec.get("sign_host", True) else SigV4AuthWithoutHost
        signer(credentials, service, spec["region"]).add_auth(request)
    signed = request.headers.get("Authorization", "")
    time.sleep(spec.get("delay", 0))
    response = URLLib3Session(timeout=20).send(request.prepare())
    text = response.content.decode("utf-8", "replace")
    print(
        json.dumps(
            {
                "status": response.status_code,
                "errortype": response.headers.get("x-amzn-errortype"),
                "body": text,
                "signed_headers": signed.split("SignedHeaders=")[1].split(",")[0] if "SignedHeaders=" in signed else None,
                "url": request.url,
            }
        )
    )


if __name__ == "__main__":
    main()
