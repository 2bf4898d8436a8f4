#!/bin/sh
# Writes v0-predictions.jsonl: prediction records as the event log held
# them before the binary record (JSON), encoded by eventlog.EncodeEvent of
# main at e1e257b, one a line. TestOldRecordsStillRead and the log contract
# suite (logtest OldRecords) read them.
set -e
cd "$(dirname "$0")"
rm -rf v0 && mkdir v0
git show e1e257b:eventlog/event.go | sed 's/^package eventlog$/package v0/' > v0/event.go
go run ./gen > v0-predictions.jsonl
rm -rf v0
