package app

import (
	"fmt"
	"net/http"
	"os/exec"
	"testing"
)

// TestDiskFull (RELIABILITY G.30): the embedded default's data folder on
// an 8 MiB tmpfs. Batches are logged until the disk is full: every answer
// is 201, or 503/507 once nothing more fits (never 2xx for what was not
// made durable). Then the tmpfs grows (space freed, no restart): logging
// succeeds again by itself, and every acknowledged prediction is stored.
// It needs root and mount: without them it skips, or fails under CI=true.
func TestDiskFull(t *testing.T) {
	cfg := testConfig(t)
	cfg.DataDir = tmpfs(t, "size=8m")
	s := start(t, cfg)
	admin := s.admin()
	key, _ := s.key(admin, "write", "read")
	model := s.model(admin, "churn", "1")
	acked, next := 0, 0
	var refused []map[string]any // the batch the full disk refused
	send := func(items []map[string]any) int {
		r := s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items})
		switch r.status {
		case http.StatusCreated:
			acked += len(items)
		case http.StatusServiceUnavailable, http.StatusInsufficientStorage:
			t.Logf("after %d acknowledged: %d %s", acked, r.status, r.raw)
			refused = items
		default:
			t.Fatalf("batch: got %d %s, want 201, 503 or 507", r.status, r.raw)
		}
		return r.status
	}
	batch := func() int {
		items := make([]map[string]any, 200)
		for i := range items {
			next++
			items[i] = map[string]any{"prediction_id": fmt.Sprintf("p-%d", next), "input_data": map[string]any{"text": fmt.Sprintf("%0512d", next)},
				"output_data": map[string]any{"churn": next%2 == 0}}
		}
		return send(items)
	}
	for range 2000 {
		if batch() != http.StatusCreated {
			break
		}
	}
	if refused == nil || acked == 0 {
		t.Fatalf("logged %d predictions, none refused: want some logged, then the disk full", acked)
	}
	if out, err := exec.Command("mount", "-o", "remount,size=256m", cfg.DataDir).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v: %s", err, out)
	}
	// The refused batch, sent again with its ids, is stored once whether
	// or not the full disk kept any of it.
	waitFor(t, "the refused batch taken once space is freed", func() bool { return send(refused) == http.StatusCreated })
	batch()
	waitFor(t, "every acknowledged prediction stored", func() bool {
		return s.do("GET", "/predictions/models/"+model+"/stats", key, nil).want(t, 200).at("total_predictions") == float64(acked)
	})
}
