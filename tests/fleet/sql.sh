#!/usr/bin/env bash
# The statements a node sends, against a real PostgreSQL: fleet_sql
# (tests/fleet/sql.c) says what it checks.
. "$(dirname "$0")/lib.sh"
[ -x "$bin/tests/fleet_sql" ] || { echo "no $bin/tests/fleet_sql: build it first"; exit 77; }
pg_start
"$bin/tests/fleet_sql" "$DSN" || fail "fleet_sql"
finish
