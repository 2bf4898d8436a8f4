package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// keygen prints a new master key line ("id:base64"), the value of
// VIGIL_MASTER_KEY or a line of the master key file.
func keygen(stdout, stderr io.Writer) int {
	line, err := secretbox.NewKeyLine()
	if err != nil {
		fmt.Fprintf(stderr, "vigil: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, line)
	return 0
}

// health asks the local server's /readyz, for container health checks
// where no shell or curl exists: exit 0 when it answers 200 (ready, or
// ready with degraded engines, which it names), 1 otherwise. The address
// is VIGIL_ADDR's port on loopback, or args[0] when given.
func health(args []string, stdout, stderr io.Writer) int {
	addr := config.Getenv("VIGIL_ADDR")
	if len(args) > 0 {
		addr = args[0]
	}
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	url, err := readyURL(addr)
	if err != nil {
		fmt.Fprintf(stderr, "vigil health: %v\n", err)
		return 1
	}
	code, body, err := askReady(url + "?verbose")
	if err != nil {
		fmt.Fprintf(stderr, "vigil health: %v\n", err)
		return 1
	}
	if code != http.StatusOK {
		fmt.Fprintf(stderr, "vigil health: %s answered %d: %s\n", url, code, body.summary(false))
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s%s\n", body.Status, url, body.summary(true))
	return 0
}

// readiness is /readyz?verbose's answer.
type readiness struct {
	Status string `json:"status"`
	Checks []struct {
		Name   string `json:"name"`
		State  string `json:"state"`
		Reason string `json:"reason"`
	} `json:"checks"`
}

// summary names the checks that did not pass, degraded ones only when
// degraded is true.
func (r readiness) summary(degraded bool) string {
	var s strings.Builder
	for _, c := range r.Checks {
		if c.State == "ok" || degraded != (c.State == "degraded") {
			continue
		}
		fmt.Fprintf(&s, "; %s %s: %s", c.Name, c.State, c.Reason)
	}
	return s.String()
}

// askReady GETs url within 3 seconds and reads its answer.
func askReady(url string) (int, readiness, error) {
	var r readiness
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, r, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, r, err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&r); err != nil {
		return 0, r, fmt.Errorf("%s answered %d without its JSON: %w", url, res.StatusCode, err)
	}
	return res.StatusCode, r, nil
}

// readyURL is the /readyz URL of a listen address, an unspecified host
// (0.0.0.0, ::, empty) asked on loopback.
func readyURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}
