"""Drives a QLDB Session endpoint with pyqldb (the Python driver, which the lab never uses) and
prints one JSON document: what the driver returned or the error it raised. The TypeScript test
asserts; this script only reports.

    python qldb_driver.py <case> <ledger> [args...]
    python qldb_driver.py --batch '[["<case>", "<ledger>", args...], ...]'

--batch runs each case on a thread of its own (each has its own ledger and driver) and prints
one JSON list of their documents, in order: one interpreter start and one import of botocore
and pyqldb for many cases.

The endpoint, CA bundle, region and credentials come from the environment, as a standard client
reads them: AWS_ENDPOINT_URL_QLDB_SESSION, AWS_CA_BUNDLE, AWS_REGION, AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY.
"""

import json
import os
import sys
import time
from decimal import Decimal

from amazon.ion.simpleion import dumps
from botocore.exceptions import ClientError
from pyqldb.config.retry_config import RetryConfig
from pyqldb.driver.qldb_driver import QldbDriver
from pyqldb.errors import is_transaction_expired_exception


def ion_text(value):
    """A result value as Ion text, so the test sees int, decimal and float apart."""
    return dumps(value, binary=False, omit_version_marker=True)


def report_error(e):
    if isinstance(e, ClientError):
        return {
            "error": {
                "code": e.response["Error"].get("Code"),
                "message": e.response["Error"].get("Message"),
                "status": e.response["ResponseMetadata"].get("HTTPStatusCode"),
                # pyqldb's own test for "Transaction <id> has expired", which it does not retry.
                "transactionExpired": bool(is_transaction_expired_exception(e)),
            }
        }
    return {"error": {"type": type(e).__name__, "message": str(e)}}


def new_driver(ledger, retries=4):
    return QldbDriver(
        ledger_name=ledger,
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        retry_config=RetryConfig(retry_limit=retries),
    )


def rows(driver, statement, *params):
    return driver.execute_lambda(
        lambda txn: [ion_text(v) for v in txn.execute_statement(statement, *params)]
    )


def case_round_trip(driver, _args):
    # Each execute_lambda commits with the digest pyqldb computes; the driver raises if the
    # digest the endpoint returns differs, so a clean run means the endpoint agreed.
    created = rows(driver, "CREATE TABLE Person")
    indexed = rows(driver, "CREATE INDEX ON Person (GovId)")
    inserted = rows(driver, "INSERT INTO Person ?", {"GovId": "P-1", "FirstName": "Ada", "Age": 36})
    selected = rows(driver, "SELECT FirstName, Age FROM Person WHERE GovId = ?", "P-1")
    missing = rows(driver, "SELECT * FROM Person WHERE GovId = ?", "P-2")
    return {
        "created": len(created),
        "indexed": len(indexed),
        "inserted": len(inserted),
        "selected": selected,
        "missing": missing,
        "tables": [str(t) for t in driver.list_tables()],
    }


def case_list_tables(driver, args):
    for name in args:
        rows(driver, "CREATE TABLE " + name)
    return {"tables": sorted(str(t) for t in driver.list_tables())}


def case_numbers(driver, _args):
    # The same number as int, decimal and float, a negative int, and another number; in a
    # scanned table and in one with an index on n.
    docs = [
        {"id": "int", "n": 7},
        {"id": "decimal", "n": Decimal("7.0")},
        {"id": "float", "n": 7.0},
        {"id": "negative", "n": -7},
        {"id": "other", "n": 8},
    ]
    out = {}
    for table, index in (("Scanned", False), ("Indexed", True)):
        rows(driver, "CREATE TABLE " + table)
        if index:
            rows(driver, "CREATE INDEX ON %s (n)" % table)
        for doc in docs:
            rows(driver, "INSERT INTO %s ?" % table, doc)

        def ids(statement, *params):
            return sorted(json.loads(v) for v in rows(driver, statement, *params))

        out[table] = {
            "eq7": ids("SELECT VALUE id FROM %s WHERE n = 7" % table),
            "eq7.0": ids("SELECT VALUE id FROM %s WHERE n = 7.0" % table),
            "eqMinus7": ids("SELECT VALUE id FROM %s WHERE n = -7" % table),
            "eqParamDecimal": ids("SELECT VALUE id FROM %s WHERE n = ?" % table, Decimal("7.00")),
            "eqParamFloat": ids("SELECT VALUE id FROM %s WHERE n = ?" % table, 7.0),
        }
    return out


def case_documents(driver, args):
    count = int(args[0])
    table = "Docs%d" % count
    rows(driver, "CREATE TABLE " + table)
    attempts = []

    def insert_all(txn):
        attempts.append(1)
        for i in range(count):
            txn.execute_statement("INSERT INTO %s ?" % table, {"i": i})

    result = {}
    try:
        driver.execute_lambda(insert_all)
        result["committed"] = True
    except Exception as e:  # noqa: BLE001 - the test wants whatever the driver raised
        result.update(report_error(e))
    result["attempts"] = len(attempts)
    result["stored"] = len(rows(driver, "SELECT * FROM " + table))
    return result


def case_expire(driver, args):
    hold = float(args[0])
    rows(driver, "CREATE TABLE Slow")
    attempts = []

    def slow(txn):
        attempts.append(1)
        txn.execute_statement("INSERT INTO Slow ?", {"id": "slow"})
        time.sleep(hold)
        txn.execute_statement("SELECT * FROM Slow")

    result = {}
    try:
        driver.execute_lambda(slow)
        result["committed"] = True
    except Exception as e:  # noqa: BLE001
        result.update(report_error(e))
    result["attempts"] = len(attempts)
    # The driver goes on working after the expiry, and nothing of the expired transaction is there.
    result["storedAfter"] = len(rows(driver, "SELECT * FROM Slow"))
    return result


def case_unknown_ledger(driver, _args):
    try:
        return {"tables": [str(t) for t in driver.list_tables()]}
    except Exception as e:  # noqa: BLE001
        return report_error(e)


CASES = {
    "round-trip": case_round_trip,
    "list-tables": case_list_tables,
    "numbers": case_numbers,
    "documents": case_documents,
    "expire": case_expire,
    "unknown-ledger": case_unknown_ledger,
}


def run_case(case, ledger, args):
    driver = new_driver(ledger, retries=0 if case == "unknown-ledger" else 4)
    try:
        return CASES[case](driver, args)
    except Exception as e:  # noqa: BLE001
        return {"unexpected": report_error(e)["error"]}
    finally:
        driver.close()


def main():
    if sys.argv[1] == "--batch":
        from concurrent.futures import ThreadPoolExecutor

        cases = json.loads(sys.argv[2])
        with ThreadPoolExecutor(max_workers=len(cases)) as pool:
            futures = [pool.submit(run_case, c[0], c[1], c[2:]) for c in cases]
            print(json.dumps([f.result() for f in futures]))
        return
    print(json.dumps(run_case(sys.argv[1], sys.argv[2], sys.argv[3:])))


if __name__ == "__main__":
    main()
