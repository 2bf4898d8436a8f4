package sqlite_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/sqlmigrate"
	"github.com/vigilhq/vigil/schemas"
)

// TestCompletionsByArrival upgrades a store whose completions were kept in
// the WITHOUT ROWID table of migrations 0001/0010 (analytics migration
// 0040 moves them to a rowid table with a unique key index): every stored
// completion is kept with its columns, and one written again after the
// upgrade is still stored once and counted once (the hours filled from
// the stored completions on the upgrade count c1 already).
func TestCompletionsByArrival(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	db := migratedBefore(t, dir, "0040", "completions")
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := db.Exec(`INSERT INTO completions (org_id, model_id, event_id, provider, model_name, prompt, completion,
		prompt_tokens, completion_tokens, total_tokens, latency_ms, cost, metadata, ts, error, toxicity, flagged)
		VALUES ('o1', 'm1', 'c1', 'openai', 'gpt-4o', 'p', 'c', 10, 5, 15, 120.5, 0.25, '{"a":1}', ?, 'boom', '', 0)`,
		at.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err = sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var prompt, meta, errText string
	var total, ts int64
	var latency, cost float64
	if err := db.QueryRow(`SELECT prompt, total_tokens, latency_ms, cost, metadata, error, ts FROM completions
		WHERE org_id = 'o1' AND model_id = 'm1' AND event_id = 'c1'`).Scan(&prompt, &total, &latency, &cost, &meta, &errText, &ts); err != nil {
		t.Fatal(err)
	}
	if prompt != "p" || total != 15 || latency != 120.5 || cost != 0.25 || meta != `{"a":1}` || errText != "boom" || ts != at.UnixMicro() {
		t.Errorf("got %q %d %v %v %s %q %d, want the completion stored before the upgrade", prompt, total, latency, cost, meta, errText, ts)
	}
	again := eventlog.Completion{OrgID: "o1", ModelID: "m1", ID: "c1", Provider: "openai", ModelName: "gpt-4o",
		Tokens: eventlog.Tokens{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}, LatencyMS: &latency, Timestamp: at}
	fresh := again
	fresh.ID = "c2"
	if err := s.Write(ctx, analytics.Batch{Completions: []eventlog.Completion{again, fresh}}); err != nil {
		t.Fatal(err)
	}
	groups, err := s.LLMGroups(ctx, "o1", "m1", analytics.Range{From: at.Add(-time.Hour), To: at.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var n, tokens int64
	for _, g := range groups {
		n += g.Completions
		tokens += g.TotalTokens
	}
	if n != 2 || tokens != 30 {
		t.Errorf("got %d completions of %d tokens after the upgrade, want 2 of 30 (c1 once, c2)", n, tokens)
	}
}

// migratedBefore opens the store's file in dir with the analytics
// migrations numbered below first applied, and checks that table is still
// the WITHOUT ROWID table of before that migration. The caller closes it.
func migratedBefore(t *testing.T, dir, first, table string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	err = fs.WalkDir(schemas.Analytics, "analytics/sqlite", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(path) >= first {
			return err
		}
		b, err := fs.ReadFile(schemas.Analytics, path)
		before[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlmigrate.Apply(context.Background(), db, sqlmigrate.Engine{Name: "sqlite"}, before, "analytics/sqlite"); err != nil {
		t.Fatal(err)
	}
	var ddl string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("got %s, want the table before migration %s", ddl, first)
	}
	return db
}
