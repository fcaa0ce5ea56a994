"""Makes Aurora DSQL auth tokens the way the AWS SDK for Python does (botocore's dsql client:
generate_db_connect_admin_auth_token / generate_db_connect_auth_token), with the credentials
and region in the environment. Prints {"admin": ..., "user": ...}.

Usage: dsql_tokens.py HOSTNAME
"""

import json
import sys

import botocore.session


def main() -> None:
    hostname = sys.argv[1]
    client = botocore.session.get_session().create_client("dsql")
    region = client.meta.region_name
    print(
        json.dumps(
            {
                "admin": client.generate_db_connect_admin_auth_token(hostname, region),
                "user": client.generate_db_connect_auth_token(hostname, region),
            }
        )
    )


if __name__ == "__main__":
    main()
