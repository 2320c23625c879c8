#!/bin/sh
# One-shot (temporalio/admin-tools): create or upgrade Temporal's two PostgreSQL databases.
# Safe to run on every `up`: `create` tolerates an existing database and `update-schema` is a no-op
# when the schema is current.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p 5432 "$@"; }
for db in temporal temporal_visibility; do
  schema=$([ "$db" = temporal ] && echo temporal || echo visibility)
  tool --db "$db" create || echo "database $db already exists"
  tool --db "$db" setup-schema -v 0.0 || echo "schema of $db already set up"
  tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$schema/versioned"
done
echo "Temporal schema ready"
