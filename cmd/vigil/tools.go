package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
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
// where no shell or curl exists: exit 0 when it answers 200, 1 otherwise.
// The address is VIGIL_ADDR's port on loopback, or args[0] when given.
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "vigil health: %v\n", err)
		return 1
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "vigil health: %v\n", err)
		return 1
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	if res.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "vigil health: %s answered %d: %s\n", url, res.StatusCode, body)
		return 1
	}
	fmt.Fprintf(stdout, "ready: %s\n", url)
	return 0
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
