package testenv

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy on loopback in front of a real engine. Cut takes
// the engine away as a stopped server would (open connections reset, new
// ones refused) without stopping it, so that outage tests need not disturb
// the other tests that share the engine; Restore brings it back on the
// same address.
type Proxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	conns map[net.Conn]bool
}

// Proxied starts a Proxy to the host of rawURL and returns it with rawURL
// pointing at the proxy instead; the proxy stops when the test ends.
func Proxied(t testing.TB, rawURL string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %s: %v", rawURL, err)
	}
	p := &Proxy{t: t, target: u.Host, conns: map[net.Conn]bool{}}
	p.listen("127.0.0.1:0")
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.Cut)
	u.Host = p.addr
	return p, u.String()
}

// listen accepts on addr and pipes each connection to the target.
func (p *Proxy) listen(addr string) {
	p.t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatalf("proxy listen %s: %v", addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

// pipe copies between the client c and a new connection to the target
// until either side ends or the proxy is cut.
func (p *Proxy) pipe(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, s) {
		c.Close()
		s.Close()
		return
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(s, c)
	go cp(c, s)
	<-done
	c.Close()
	s.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// track records a live pair; false when the proxy was cut meanwhile.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

// Cut stops listening and resets every open connection: until Restore,
// the engine is unreachable through the proxy.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return
	}
	p.ln.Close()
	p.ln = nil
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, as from a killed server
		}
		c.Close()
		delete(p.conns, c)
	}
}

// Restore listens again on the proxy's address; it does nothing when the
// proxy is not cut.
func (p *Proxy) Restore() {
	p.t.Helper()
	p.mu.Lock()
	up := p.ln != nil
	p.mu.Unlock()
	if !up {
		p.listen(p.addr)
	}
}
