// Package schemas holds Vigil's schemas as files embedded in the binary: the
// transactional store's migrations (sql/), the embedded analytical store's
// (analytics/sqlite/) and the OpenAPI document (openapi.json).
//
// It imports nothing: the engines that apply the migrations import it.
package schemas

import "embed"

// SQL holds the transactional store's migrations, applied in file-name
// order. A file NNNN_name.sql applies to every engine; NNNN_name.ENGINE.sql
// (sqlite, postgres) to that engine only.
//
//go:embed sql/*.sql
var SQL embed.FS

// Analytics holds the analytical stores' schemas: the embedded store's
// migrations (analytics/sqlite, applied like SQL's) and ClickHouse's
// idempotent DDL (analytics/clickhouse).
//
//go:embed analytics/sqlite/*.sql analytics/clickhouse/*.sql
var Analytics embed.FS

// OpenAPI is the OpenAPI 3.1 document served at /api/v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte
