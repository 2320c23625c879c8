#!/bin/sh
# One-shot (temporalio/admin-tools): once the frontend serves, create the namespace and the search
# attributes the api and the worker use (src/temporal/searchAttributes.ts), so neither ever starts
# against a namespace that does not exist yet. Idempotent.
set -eu
: "${TEMPORAL_ADDRESS:?}"
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
tries=0
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" 2>/dev/null | grep -q SERVING; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "Temporal at $TEMPORAL_ADDRESS did not serve within 120 s"; exit 1; }
  sleep 2
done
temporal operator namespace describe --address "$TEMPORAL_ADDRESS" -n "$NAMESPACE" >/dev/null 2>&1 \
  || temporal operator namespace create --address "$TEMPORAL_ADDRESS" -n "$NAMESPACE" --retention 30d
existing=$(temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" -n "$NAMESPACE")
for pair in OrgId=Keyword Domain=Keyword Livemode=Bool OperationType=Keyword; do
  name=${pair%%=*}
  echo "$existing" | grep -qw "$name" \
    || temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" -n "$NAMESPACE" --name "$name" --type "${pair#*=}"
done
echo "Namespace $NAMESPACE and its search attributes ready"
