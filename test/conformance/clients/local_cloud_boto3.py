"""What boto3 and pyqldb see of the running lab given only its environment file: the DynamoDB
tables (AWS_ENDPOINT_URL_DYNAMODB, AWS_CA_BUNDLE, AWS_DEFAULT_REGION and the caller's keys), and
a QLDB statement through the driver (AWS_ENDPOINT_URL_QLDB_SESSION). Prints one JSON document;
the TypeScript test asserts.

    python local_cloud_boto3.py <ledger> <GovId>
"""

import json
import sys

import boto3
from amazon.ion.simpleion import dumps
from pyqldb.driver.qldb_driver import QldbDriver


def main():
    ledger, gov_id = sys.argv[1], sys.argv[2]
    # No endpoint, region or credentials in code: boto3 reads them from the environment.
    tables = boto3.client("dynamodb").list_tables()["TableNames"]
    driver = QldbDriver(ledger_name=ledger)
    driver.execute_lambda(
        lambda txn: txn.execute_statement(
            "INSERT INTO Person ?", {"GovId": gov_id, "FirstName": "Ada", "GovIdType": "Passport"}
        )
    )
    rows = driver.execute_lambda(
        lambda txn: [
            dumps(v, binary=False, omit_version_marker=True)
            for v in txn.execute_statement("SELECT FirstName FROM Person WHERE GovId = ?", gov_id)
        ]
    )
    driver.close()
    print(json.dumps({"tables": tables, "qldb": rows}))


if __name__ == "__main__":
    main()
