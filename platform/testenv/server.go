package testenv

import (
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// freeAddr is a loopback address (127.0.0.1:port) free a moment ago, for
// a server the test starts.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer starts cmd (its errors on the test's stderr), kills it when
// the test ends, and waits until it accepts connections on addr.
func startServer(t testing.TB, name string, cmd *exec.Cmd, addr string) {
	t.Helper()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %v", name, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
