package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/secretbox"
)

func TestKeygen(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"keygen"}, &out, &errs); code != 0 {
		t.Fatalf("got exit %d (%s), want 0", code, errs.String())
	}
	line := strings.TrimSpace(out.String())
	if _, err := secretbox.Parse(line); err != nil {
		t.Fatalf("got key line %q that secretbox does not read: %v", line, err)
	}
	var again bytes.Buffer
	run([]string{"keygen"}, &again, &errs)
	if strings.TrimSpace(again.String()) == line {
		t.Fatalf("got the same key twice: %q", line)
	}
}

func TestReadyURL(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"0.0.0.0:8080", "http://127.0.0.1:8080/readyz"},
		{":9000", "http://127.0.0.1:9000/readyz"},
		{"[::]:8080", "http://127.0.0.1:8080/readyz"},
		{"10.1.2.3:8080", "http://10.1.2.3:8080/readyz"},
		{"[::1]:8080", "http://[::1]:8080/readyz"},
	} {
		if got, err := readyURL(c.addr); err != nil || got != c.want {
			t.Errorf("readyURL(%q): got %q %v, want %q", c.addr, got, err, c.want)
		}
	}
	if _, err := readyURL("8080"); err == nil {
		t.Errorf("readyURL(\"8080\"): got no error, want one")
	}
}

// TestHealth runs `vigil health` against a ready server (exit 0) and an
// address nobody listens on (exit 1), as a container health check would.
func TestHealth(t *testing.T) {
	p := startVigil(t, buildVigil(t), t.TempDir())
	addr := p.waitFor(t, "listening")["addr"].(string)
	var out, errs bytes.Buffer
	if code := run([]string{"health", addr}, &out, &errs); code != 0 {
		t.Fatalf("vigil health %s: got exit %d (%s), want 0", addr, code, errs.String())
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	errs.Reset()
	if code := run([]string{"health", closed}, &out, &errs); code != 1 || !strings.Contains(errs.String(), "vigil health") {
		t.Fatalf("vigil health %s (nobody listening): got exit %d %q, want 1 with a reason", closed, code, errs.String())
	}
	t.Setenv("VIGIL_ADDR", addr)
	if code := run([]string{"health"}, &out, &errs); code != 0 {
		t.Fatalf("vigil health with VIGIL_ADDR=%s: got exit %d, want 0", addr, code)
	}

	// An API replica whose analytical store is unreachable still ingests:
	// healthy, naming the degraded engine.
	p = startVigil(t, buildVigil(t), t.TempDir(), "VIGIL_ROLES=api", "VIGIL_CLICKHOUSE_URL=clickhouse://"+closed+"/default")
	addr = p.waitFor(t, "listening")["addr"].(string)
	out.Reset()
	if code := run([]string{"health", addr}, &out, &errs); code != 0 || !strings.Contains(out.String(), "degraded") ||
		!strings.Contains(out.String(), "analytics:clickhouse degraded") {
		t.Fatalf("vigil health %s (ClickHouse down): got exit %d %q, want 0 naming analytics:clickhouse degraded", addr, code, out.String())
	}
}
