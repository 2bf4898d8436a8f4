package outbound

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// canary is a listener on loopback that counts the connections it sees.
type canary struct {
	ln    net.Listener
	conns atomic.Int64
}

func newCanary(t *testing.T, network, addr string) *canary {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("listen %s %s: %v", network, addr, err)
	}
	c := &canary{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.conns.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

func (c *canary) port() string {
	_, p, _ := net.SplitHostPort(c.ln.Addr().String())
	return p
}

// TestRefused: every spelling of a non-public address is refused by
// CheckURL and, dialled anyway, by the client; the loopback canaries see
// no connection.
func TestRefused(t *testing.T) {
	v4 := newCanary(t, "tcp4", "127.0.0.1:0")
	v6 := newCanary(t, "tcp6", "[::1]:0")
	p4, p6 := v4.port(), v6.port()
	var g Guard
	client := g.Client(2 * time.Second)
	for _, target := range []string{
		"http://127.0.0.1:" + p4, "http://127.1:" + p4, "http://2130706433:" + p4, "http://0x7f000001:" + p4,
		"http://0177.0.0.1:" + p4, "http://0x7f.1:" + p4, "http://127.0.0.1.:" + p4, "https://127.0.0.1:" + p4,
		"http://[::1]:" + p6, "http://[::ffff:127.0.0.1]:" + p4, "http://[::ffff:7f00:1]:" + p4, "http://[0:0:0:0:0:0:0:1]:" + p6,
		"http://[64:ff9b::7f00:1]:" + p4, "http://[2002:7f00:1::]:" + p4,
		"http://0.0.0.0:" + p4, "http://0:" + p4, "http://localhost:" + p4, "http://LOCALHOST.:" + p4, "http://a.localhost:" + p4,
		"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/",
		"http://100.64.0.1/", "http://[fe80::1%25eth0]/", "http://[fc00::1]/", "http://224.0.0.1/", "http://255.255.255.255/",
		"ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "http://user:pw@example.com/", "http:///nohost",
	} {
		if _, err := g.CheckURL(target); !Refused(err) {
			t.Errorf("CheckURL(%s): got %v, want a refusal", target, err)
		}
		if strings.HasPrefix(target, "http") && !strings.Contains(target, "@") {
			res, err := client.Get(target)
			if err == nil {
				res.Body.Close()
				t.Errorf("Get(%s): got %s, want a refusal", target, res.Status)
			}
		}
	}
	if n := v4.conns.Load() + v6.conns.Load(); n != 0 {
		t.Fatalf("the loopback canaries saw %d connections, want 0", n)
	}
}

// TestAllowed: public addresses and names pass CheckURL; an allow-listed
// loopback receiver is reached, and its redirect to a canary is not
// followed.
func TestAllowed(t *testing.T) {
	var g Guard
	for _, target := range []string{"https://hooks.slack.com/services/T0/B0/x", "http://8.8.8.8/", "https://[2606:4700::1111]/x",
		"http://93.184.216.34:8080/p?q=1"} {
		if _, err := g.CheckURL(target); err != nil {
			t.Errorf("CheckURL(%s): got %v, want nil", target, err)
		}
	}
	c := newCanary(t, "tcp4", "127.0.0.2:0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:"+c.port()+"/", http.StatusFound)
	}))
	defer srv.Close()
	allow, err := ParseAllow([]string{"127.0.0.1", "10.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	g = Guard{Allow: allow}
	if _, err := g.CheckURL(srv.URL); err != nil {
		t.Fatalf("CheckURL(%s) allow-listed: got %v, want nil", srv.URL, err)
	}
	if _, err := g.CheckURL("http://10.1.2.3/"); err != nil {
		t.Fatalf("CheckURL(10.1.2.3) allow-listed 10/8: got %v, want nil", err)
	}
	res, err := g.Client(2 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatalf("Get(%s) allow-listed: got %v, want an answer", srv.URL, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("Get with a redirect: got %s, want the 302 itself", res.Status)
	}
	if n := c.conns.Load(); n != 0 {
		t.Fatalf("the redirect's target saw %d connections, want 0", n)
	}
	if _, err := ParseAllow([]string{"not-an-address"}); err == nil {
		t.Fatal("ParseAllow(not-an-address): got nil error, want one")
	}
}

// TestLiteral reads IPv4 as inet_aton does.
func TestLiteral(t *testing.T) {
	f := func(host, want string) {
		t.Helper()
		got, ok := literal(host)
		if want == "" {
			if ok {
				t.Errorf("literal(%q): got %v, want no address", host, got)
			}
			return
		}
		if !ok || got != netip.MustParseAddr(want) {
			t.Errorf("literal(%q): got %v %v, want %s", host, got, ok, want)
		}
	}
	f("127.1", "127.0.0.1")
	f("2130706433", "127.0.0.1")
	f("0x7f000001", "127.0.0.1")
	f("0177.0.0.01", "127.0.0.1")
	f("10.65535", "10.0.255.255")
	f("1.2.3.4", "1.2.3.4")
	f("::ffff:127.0.0.1", "::ffff:127.0.0.1")
	f("[::1]", "::1")
	f("256.1.1.1", "")
	f("1.2.3.4.5", "")
	f("example.com", "")
	f("08.1.1.1", "")
	f("4294967296", "")
}

// FuzzCheckURL: CheckURL never panics, and never accepts a URL whose host
// is an address that is not public.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.1/", "http://[::ffff:127.0.0.1]/", "https://example.com/x", "http://0x7f.0.0.1/", "http://2130706433/"} {
		f.Add(s)
	}
	var g Guard
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := g.CheckURL(raw)
		if err != nil {
			return
		}
		if ip, ok := literal(u.Hostname()); ok && nonPublic(ip.Unmap()) != "" {
			t.Fatalf("CheckURL(%q) accepted %s, which is %s", raw, ip, nonPublic(ip.Unmap()))
		}
	})
}
