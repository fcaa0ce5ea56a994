"""Drives the QLDB control plane (CreateLedger, DescribeLedger, ListLedgers, UpdateLedger,
DeleteLedger) with boto3's `qldb` client, which the lab never uses, through a ledger's life, and
prints one JSON document: each step's answer or error. The TypeScript test asserts.

    python qldb_control.py <ledger>

The endpoint, CA bundle, region and credentials come from the environment: AWS_ENDPOINT_URL_QLDB,
AWS_ENDPOINT_URL_QLDB_SESSION, AWS_CA_BUNDLE, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.
"""

import json
import os
import sys
import time

import boto3
from botocore.exceptions import ClientError


def error(e):
    return {
        "code": e.response["Error"].get("Code"),
        "message": e.response["Error"].get("Message"),
        "status": e.response["ResponseMetadata"].get("HTTPStatusCode"),
    }


def step(fn):
    try:
        return {"ok": fn()}
    except ClientError as e:
        return {"error": error(e)}


def main():
    name = sys.argv[1]
    region = os.environ.get("AWS_REGION", "us-east-1")
    qldb = boto3.client("qldb", region_name=region)
    session = boto3.client("qldb-session", region_name=region)
    out = {}
    created = step(lambda: qldb.create_ledger(Name=name, PermissionsMode="STANDARD"))
    out["create"] = {"State": created["ok"]["State"], "DeletionProtection": created["ok"]["DeletionProtection"]} if "ok" in created else created
    out["sessionWhileCreating"] = step(lambda: session.send_command(StartSession={"LedgerName": name}) and "started")
    # Wait as the driver's tests do: DescribeLedger until ACTIVE.
    state = None
    for _ in range(50):
        state = qldb.describe_ledger(Name=name)["State"]
        if state == "ACTIVE":
            break
        time.sleep(0.1)
    out["activeState"] = state
    out["duplicate"] = step(lambda: qldb.create_ledger(Name=name, PermissionsMode="STANDARD"))
    out["listed"] = name in [l["Name"] for l in qldb.list_ledgers()["Ledgers"]]
    out["deleteProtected"] = step(lambda: qldb.delete_ledger(Name=name))
    out["update"] = step(lambda: qldb.update_ledger(Name=name, DeletionProtection=False)["DeletionProtection"])
    out["delete"] = step(lambda: qldb.delete_ledger(Name=name) and "deleted")
    for _ in range(50):
        gone = step(lambda: qldb.describe_ledger(Name=name)["State"])
        if "error" in gone:
            break
        time.sleep(0.1)
    out["describeAfterDelete"] = gone
    out["sessionAfterDelete"] = step(lambda: session.send_command(StartSession={"LedgerName": name}) and "started")
    out["describeNeverCreated"] = step(lambda: qldb.describe_ledger(Name="never-created"))
    out["invalidName"] = step(lambda: qldb.create_ledger(Name="-bad-", PermissionsMode="STANDARD"))
    print(json.dumps(out))


main()
