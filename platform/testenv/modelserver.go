package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// ModelServer is a model server script (explanation/modelserver/testdata/
// server.py) running on loopback under the scikit-learn Python.
type ModelServer struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
}

// StartModelServer runs script for the test, stopped when it ends. The
// script prints "listening on PORT" once it serves.
func StartModelServer(t testing.TB, script string) *ModelServer {
	t.Helper()
	py := URL(t, ModelServerPython)
	cmd := exec.Command(py, script)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the model server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the model server did not start: got %q (%v), want \"listening on PORT\"", line, err)
	}
	return &ModelServer{URL: "http://127.0.0.1:" + port}
}

// Batches returns the rows of each request the server has answered.
func (s *ModelServer) Batches(t testing.TB) []int {
	t.Helper()
	resp, err := http.Get(s.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Rows []int `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(fmt.Errorf("model server stats: %w", err))
	}
	return st.Rows
}
