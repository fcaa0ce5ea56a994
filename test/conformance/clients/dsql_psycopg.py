"""Runs statements against Aurora DSQL (or the lab's stand-in) with psycopg 3, which speaks the
extended query protocol (Parse/Bind/Execute) for every execute; prepare=True makes it a named
prepared statement. Sessions interleave in the order the steps give.

Usage: dsql_psycopg.py SPEC_JSON
  SPEC = {"conninfo": {host, port, user, password, dbname, sslmode, sslrootcert},
          "sessions": {"a": {"user": ..., "password": ...}, ...},   # overrides per session
          "steps": [{"session": "a", "sql": "...", "params": [...], "prepare": false}
                    | {"session": "a", "commit": true}, ...]}
A session is in autocommit mode unless its overrides say "autocommit": false; then psycopg
opens the transaction itself and {"commit": true} is conn.commit() (a simple-protocol COMMIT).
Prints {"steps": [{"ok": true, "status": "UPDATE 1", "rows": [...]} |
                  {"ok": false, "sqlstate": "0A000", "message": "..."}]}
A session that cannot connect reports that in each of its steps.
"""

import json
import sys

import psycopg


def main() -> None:
    spec = json.loads(sys.argv[1])
    conns = {}
    connect_errors = {}
    for name, overrides in spec["sessions"].items():
        info = {**spec["conninfo"], **overrides}
        autocommit = info.pop("autocommit", True)
        try:
            conns[name] = psycopg.connect(**info, autocommit=autocommit, connect_timeout=10)
        except psycopg.Error as error:
            connect_errors[name] = {
                "ok": False,
                "sqlstate": getattr(error, "sqlstate", None),
                "message": str(error),
            }
    out = []
    for step in spec["steps"]:
        name = step["session"]
        if name in connect_errors:
            out.append(connect_errors[name])
            continue
        try:
            if step.get("commit"):
                conns[name].commit()
                out.append({"ok": True, "status": "COMMIT", "rows": []})
                continue
            with conns[name].cursor() as cur:
                cur.execute(step["sql"], step.get("params"), prepare=step.get("prepare", False))
                rows = cur.fetchall() if cur.description else []
                out.append(
                    {
                        "ok": True,
                        "status": cur.statusmessage,
                        "rows": [[None if v is None else str(v) for v in row] for row in rows],
                    }
                )
        except psycopg.Error as error:
            diag = error.diag
            out.append({"ok": False, "sqlstate": diag.sqlstate, "message": diag.message_primary})
    for conn in conns.values():
        conn.close()
    print(json.dumps({"steps": out}))


if __name__ == "__main__":
    main()
