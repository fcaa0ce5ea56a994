"""Makes an RDS IAM auth token the way the AWS SDK for Python does (botocore's rds client:
generate_db_auth_token), with the credentials and region in the environment. Prints the token.

Usage: rds_token.py HOSTNAME PORT USER
"""

import sys

import botocore.session


def main() -> None:
    hostname, port, user = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    client = botocore.session.get_session().create_client("rds")
    print(client.generate_db_auth_token(hostname, port, user))


if __name__ == "__main__":
    main()
