//go:build fault

package app

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestFaultSIGTERMDrain (RELIABILITY 27): `vigil serve` gets SIGTERM while
// a client is sending batches. It exits 0 within the shutdown grace, and
// every batch it answered 2xx is stored exactly once, once the process is
// started again on the same backends if not before.
func TestFaultSIGTERMDrain(t *testing.T) {
	bin := buildVigil(t)
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			cfg.Limits.Batch = 1 << 20
			cfg.ShutdownGrace = 10 * time.Second
			dir, addr := t.TempDir(), freeAddr(t)
			start := func() *child {
				c, err := spawn(bin, addr, dir, vigilEnv(cfg))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.kill)
				return c
			}
			c := start()
			s := clientOf(t, addr)
			key, _ := s.key(s.admin(), "read", "write")
			l := newLedger(s, key, s.model(key, "drained", "1"))

			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				for l.send(t, 500) != 0 { // until the process no longer answers
					time.Sleep(20 * time.Millisecond)
				}
			}()
			time.Sleep(2 * time.Second)
			sent := time.Now()
			if err := c.terminate(cfg.ShutdownGrace + 5*time.Second); err != nil {
				t.Fatalf("got %v after SIGTERM, want exit status 0; log in %s", err, c.log)
			}
			took := time.Since(sent)
			if took > cfg.ShutdownGrace {
				t.Fatalf("exit took %v after SIGTERM, want within the %v grace", took, cfg.ShutdownGrace)
			}
			t.Logf("exited 0, %v after SIGTERM", took.Round(time.Millisecond))
			<-stopped
			if log, _ := os.ReadFile(c.log); !strings.Contains(string(log), "stopped cleanly") {
				t.Fatalf("got no 'stopped cleanly' in the log:\n%s", log)
			}
			start()
			l.check(t, time.Minute)
			if len(l.acked) == 0 {
				t.Fatal("got no batch acknowledged before SIGTERM, want some in flight")
			}
		})
	}
}
