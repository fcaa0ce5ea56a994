"""What botocore sees from a DynamoDB endpoint, one JSON document per run.

Usage: dynamodb_cases.py ENDPOINT TABLE PREFIX [--ca CA_PEM] CASE [CASE ...]

TABLE has the lab's Person schema (hash key GovId; index ByGovIdTypeCreatedAt on GovIdType,
CreatedAt). PREFIX keeps each run's items apart. Prints {"CASE": observation, ...}; an
observation reports what the client saw (the result, or the error's code, message, status,
headers and raw body) and never judges it: the TypeScript test asserts.
"""

import binascii
import json
import sys
from concurrent.futures import ThreadPoolExecutor

import botocore.session
from botocore.config import Config
from botocore.exceptions import ClientError

INDEX = "ByGovIdTypeCreatedAt"
CA = [None]


def make_client(endpoint, ca, secret="conformance"):
    session = botocore.session.get_session()
    client = session.create_client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="conformance",
        aws_secret_access_key=secret,
        # verify=CA: the lab's TLS is trusted through its CA, never by turning checks off.
        verify=ca if ca else True,
        # One attempt: a case sees the engine's first answer, not a retry's.
        config=Config(retries={"total_max_attempts": 1}),
    )
    raw = {}

    def keep_raw(http_response, **_):
        # The bytes on the wire, before botocore parses them (its crc32 check runs on these too).
        raw["status"] = http_response.status_code
        raw["headers"] = {k.lower(): v for k, v in http_response.headers.items()}
        raw["body"] = http_response.content.decode("utf-8", "replace")

    # after-call fires for errors too, before botocore raises the ClientError.
    client.meta.events.register("after-call.dynamodb", lambda **kw: keep_raw(kw["http_response"]))
    return client, raw


def call(client, raw, op, **params):
    """Runs one operation: {"ok": result} or {"error": {code, message, status, item, reasons, ...}}."""
    raw.clear()
    try:
        out = getattr(client, op)(**params)
        out.pop("ResponseMetadata", None)
        return {"ok": out, "wire": wire(raw)}
    except ClientError as e:
        r = e.response
        return {
            "error": {
                "code": r["Error"].get("Code"),
                "message": r["Error"].get("Message"),
                "status": r["ResponseMetadata"].get("HTTPStatusCode"),
                "item": r.get("Item"),
                "reasons": r.get("CancellationReasons"),
            },
            "wire": wire(raw),
        }


def wire(raw):
    body = raw.get("body", "")
    headers = raw.get("headers", {})
    try:
        type_ = json.loads(body).get("__type") if body.startswith("{") else None
    except ValueError:
        type_ = None
    crc = headers.get("x-amz-crc32")
    return {
        "status": raw.get("status"),
        "type": type_,
        "requestId": headers.get("x-amzn-requestid"),
        "crc32Header": crc,
        "crc32Matches": crc is not None and int(crc) == binascii.crc32(body.encode("utf-8")) & 0xFFFFFFFF,
        "contentType": headers.get("content-type"),
    }


def person(gov_id, created_at, gov_id_type="Passport", **extra):
    item = {
        "GovId": {"S": gov_id},
        "FirstName": {"S": "Ada"},
        "LastName": {"S": "Lovelace"},
        "GovIdType": {"S": gov_id_type},
        "CreatedAt": {"N": str(created_at)},
    }
    item.update(extra)
    return item


def case_conditional_put_all_old(c, raw, table, p):
    first = person(f"{p}-dup", 1)
    call(c, raw, "put_item", TableName=table, Item=first)
    return call(
        c,
        raw,
        "put_item",
        TableName=table,
        Item=person(f"{p}-dup", 2, FirstName={"S": "Mallory"}),
        ConditionExpression="attribute_not_exists(GovId)",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )


def case_conditional_update_all_old(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-upd", 1))
    return call(
        c,
        raw,
        "update_item",
        TableName=table,
        Key={"GovId": {"S": f"{p}-upd"}},
        UpdateExpression="SET Address = :a",
        ConditionExpression="FirstName = :f",
        ExpressionAttributeValues={":a": {"S": "1 Road"}, ":f": {"S": "Nobody"}},
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )


def case_conditional_put_none(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-none", 1))
    return call(
        c,
        raw,
        "put_item",
        TableName=table,
        Item=person(f"{p}-none", 2),
        ConditionExpression="attribute_not_exists(GovId)",
    )


def get(c, raw, table, gov_id):
    out = call(c, raw, "get_item", TableName=table, Key={"GovId": {"S": gov_id}}, ConsistentRead=True)
    return out.get("ok", {}).get("Item")


def case_transact_write_ok(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-tx-c", 1))
    result = call(
        c,
        raw,
        "transact_write_items",
        TransactItems=[
            {"Put": {"TableName": table, "Item": person(f"{p}-tx-a", 1), "ConditionExpression": "attribute_not_exists(GovId)"}},
            {"Put": {"TableName": table, "Item": person(f"{p}-tx-b", 2)}},
            {
                "Update": {
                    "TableName": table,
                    "Key": {"GovId": {"S": f"{p}-tx-c"}},
                    "UpdateExpression": "SET Address = :a",
                    "ConditionExpression": "attribute_exists(GovId)",
                    "ExpressionAttributeValues": {":a": {"S": "2 Road"}},
                }
            },
        ],
    )
    result["after"] = {k: get(c, raw, table, f"{p}-tx-{k}") for k in ("a", "b", "c")}
    return result


def case_transact_write_cancelled(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-txc-old", 1))
    result = call(
        c,
        raw,
        "transact_write_items",
        TransactItems=[
            {"Put": {"TableName": table, "Item": person(f"{p}-txc-new", 1)}},
            {
                "Put": {
                    "TableName": table,
                    "Item": person(f"{p}-txc-old", 2, FirstName={"S": "Mallory"}),
                    "ConditionExpression": "attribute_not_exists(GovId)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            },
            {
                "ConditionCheck": {
                    "TableName": table,
                    "Key": {"GovId": {"S": f"{p}-txc-missing"}},
                    "ConditionExpression": "attribute_not_exists(GovId)",
                }
            },
        ],
    )
    # Atomic: the first Put, whose own condition held, must not have been written.
    result["newWritten"] = get(c, raw, table, f"{p}-txc-new") is not None
    result["oldFirstName"] = (get(c, raw, table, f"{p}-txc-old") or {}).get("FirstName", {}).get("S")
    return result


def case_transact_update_invalid(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-inv-b", 1))
    result = call(
        c,
        raw,
        "transact_write_items",
        TransactItems=[
            {"Put": {"TableName": table, "Item": person(f"{p}-inv-a", 1)}},
            {
                "Update": {
                    "TableName": table,
                    "Key": {"GovId": {"S": f"{p}-inv-b"}},
                    "UpdateExpression": "SET GovIdType = :t",
                    "ExpressionAttributeValues": {":t": {"S": ""}},
                }
            },
        ],
    )
    result["aWritten"] = get(c, raw, table, f"{p}-inv-a") is not None
    result["bType"] = (get(c, raw, table, f"{p}-inv-b") or {}).get("GovIdType", {}).get("S")
    return result


def case_transact_same_item_twice(c, raw, table, p):
    return call(
        c,
        raw,
        "transact_write_items",
        TransactItems=[
            {"Put": {"TableName": table, "Item": person(f"{p}-twice", 1)}},
            {"Delete": {"TableName": table, "Key": {"GovId": {"S": f"{p}-twice"}}}},
        ],
    )


def case_transact_get(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-tg", 1))
    return call(
        c,
        raw,
        "transact_get_items",
        TransactItems=[
            {"Get": {"TableName": table, "Key": {"GovId": {"S": f"{p}-tg"}}}},
            {"Get": {"TableName": table, "Key": {"GovId": {"S": f"{p}-tg-missing"}}}},
        ],
    )


def visits(c, raw, table, gov_id):
    item = get(c, raw, table, gov_id) or {}
    return int(item["Visits"]["N"]) if "Visits" in item else None


def add_visit(table, gov_id):
    return {
        "Update": {
            "TableName": table,
            "Key": {"GovId": {"S": gov_id}},
            "UpdateExpression": "ADD Visits :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
    }


def case_transact_idempotent(c, raw, table, p):
    token = f"{p}-token"[:36]
    first = call(c, raw, "transact_write_items", ClientRequestToken=token, TransactItems=[add_visit(table, f"{p}-idem")])
    again = call(c, raw, "transact_write_items", ClientRequestToken=token, TransactItems=[add_visit(table, f"{p}-idem")])
    count = visits(c, raw, table, f"{p}-idem")
    other = call(c, raw, "transact_write_items", ClientRequestToken=token, TransactItems=[add_visit(table, f"{p}-idem-2")])
    return {"first": first, "again": again, "visits": count, "otherPayload": other}


def case_transact_concurrent(c, raw, table, p):
    # Ten transactions on one item at once, each from its own thread and connection.
    def one(_):
        client, r = make_client(c.meta.endpoint_url, CA[0])
        out = call(client, r, "transact_write_items", TransactItems=[add_visit(table, f"{p}-conc")])
        return out.get("error", {}).get("code") or "ok"

    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = list(pool.map(one, range(10)))
    return {"outcomes": outcomes, "visits": visits(c, raw, table, f"{p}-conc")}


def case_transact_consumed_capacity(c, raw, table, p):
    return call(
        c,
        raw,
        "transact_write_items",
        ReturnConsumedCapacity="TOTAL",
        TransactItems=[{"Put": {"TableName": table, "Item": person(f"{p}-cap", 1)}}],
    )


def case_query_gsi_right_after_put(c, raw, table, p):
    # A global secondary index is updated after the write is acknowledged: in AWS a Query at once
    # may or may not list it. Twenty tries, each a put then an immediate Query on its own type.
    listed = 0
    for i in range(20):
        kind = f"{p}-fresh-{i}"
        call(c, raw, "put_item", TableName=table, Item=person(f"{p}-f{i}", 1, gov_id_type=kind))
        out = call(
            c,
            raw,
            "query",
            TableName=table,
            IndexName=INDEX,
            KeyConditionExpression="GovIdType = :t",
            ExpressionAttributeValues={":t": {"S": kind}},
        )
        listed += out.get("ok", {}).get("Count", 0)
    return {"tries": 20, "listed": listed}


def case_any_signature(c, raw, table, p):
    # Signed with a secret no one shares: DynamoDB answers UnrecognizedClientException or
    # InvalidSignatureException; the local engines check only that a SigV4 header is there.
    other, other_raw = make_client(c.meta.endpoint_url, CA[0], secret="not-the-secret")
    return call(other, other_raw, "get_item", TableName=table, Key={"GovId": {"S": f"{p}-any"}})


def case_gsi_empty_key_put(c, raw, table, p):
    result = call(c, raw, "put_item", TableName=table, Item=person(f"{p}-gsi-empty", 1, gov_id_type=""))
    result["written"] = get(c, raw, table, f"{p}-gsi-empty") is not None
    return result


def case_gsi_empty_key_update(c, raw, table, p):
    call(c, raw, "put_item", TableName=table, Item=person(f"{p}-gsi-upd", 1))
    result = call(
        c,
        raw,
        "update_item",
        TableName=table,
        Key={"GovId": {"S": f"{p}-gsi-upd"}},
        UpdateExpression="SET GovIdType = :t",
        ExpressionAttributeValues={":t": {"S": ""}},
    )
    result["storedType"] = (get(c, raw, table, f"{p}-gsi-upd") or {}).get("GovIdType", {}).get("S")
    return result


def case_empty_string_non_key(c, raw, table, p):
    result = call(c, raw, "put_item", TableName=table, Item=person(f"{p}-empty-attr", 1, Address={"S": ""}))
    result["stored"] = (get(c, raw, table, f"{p}-empty-attr") or {}).get("Address")
    return result


def case_unknown_table(c, raw, table, p):
    return call(c, raw, "get_item", TableName=f"{table}-does-not-exist", Key={"GovId": {"S": "x"}})


def case_item_too_large(c, raw, table, p):
    # 400 KB is the item's limit, names and values together: one 400 KiB value is over it.
    result = call(c, raw, "put_item", TableName=table, Item=person(f"{p}-big", 1, Address={"S": "x" * 409_600}))
    result["written"] = get(c, raw, table, f"{p}-big") is not None
    return result


def case_item_at_limit(c, raw, table, p):
    # The other attributes' names and values take under 100 bytes: this item is just under 400 KB.
    result = call(c, raw, "put_item", TableName=table, Item=person(f"{p}-max", 1, Address={"S": "x" * 409_400}))
    result["written"] = get(c, raw, table, f"{p}-max") is not None
    return result


def case_query_gsi(c, raw, table, p):
    kind = f"{p}-type"
    for i, created in enumerate([100, 300, 200]):
        call(c, raw, "put_item", TableName=table, Item=person(f"{p}-q{i}", created, gov_id_type=kind))
    result = call(
        c,
        raw,
        "query",
        TableName=table,
        IndexName=INDEX,
        KeyConditionExpression="#t = :t",
        ExpressionAttributeNames={"#t": "GovIdType"},
        ExpressionAttributeValues={":t": {"S": kind}},
        ScanIndexForward=False,
        Limit=2,
    )
    if "ok" in result:
        ok = result["ok"]
        result["ok"] = {
            "ids": [i["GovId"]["S"] for i in ok.get("Items", [])],
            "count": ok.get("Count"),
            "lastKey": sorted(ok.get("LastEvaluatedKey", {}).keys()),
        }
    return result


def case_query_gsi_consistent(c, raw, table, p):
    return call(
        c,
        raw,
        "query",
        TableName=table,
        IndexName=INDEX,
        KeyConditionExpression="GovIdType = :t",
        ExpressionAttributeValues={":t": {"S": "Passport"}},
        ConsistentRead=True,
    )


def case_error_shape(c, raw, table, p):
    return case_conditional_put_none(c, raw, table, f"{p}-shape")


def main(argv):
    args = list(argv)
    ca = None
    if "--ca" in args:
        i = args.index("--ca")
        ca = args[i + 1]
        del args[i : i + 2]
    endpoint, table, prefix, *cases = args
    CA[0] = ca
    client, raw = make_client(endpoint, ca)
    out = {}
    for name in cases:
        fn = globals().get(f"case_{name}")
        if fn is None:
            raise SystemExit(f"unknown case {name}")
        out[name] = fn(client, raw, table, f"{prefix}-{name}")
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
