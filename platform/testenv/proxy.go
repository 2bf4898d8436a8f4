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
// same address. Hang takes it away as a server that stops answering
// would: connections are accepted and never answered.
type Proxy struct {
	t      testing.TB
	target string
	addr   string

	mu       sync.Mutex
	ln       net.Listener // nil while cut
	conns    map[net.Conn]bool
	hang     bool  // accepted connections are held, not piped
	accepted int64 // connections accepted so far
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
			p.mu.Lock()
			p.accepted++
			hang := p.hang
			p.mu.Unlock()
			if hang {
				if !p.track(c) {
					c.Close()
				}
				continue
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

// Accepted returns how many connections the proxy has accepted: the
// dials of its clients that reached it.
func (p *Proxy) Accepted() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Hang resets every open connection and, until Restore, accepts new ones
// and never answers them: a server that hangs.
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hang = true
	p.reset()
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
	p.reset()
}

// reset resets every open connection; p.mu is held.
func (p *Proxy) reset() {
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, as from a killed server
		}
		c.Close()
		delete(p.conns, c)
	}
}

// Restore pipes new connections again, listening again on the proxy's
// address when it was cut.
func (p *Proxy) Restore() {
	p.t.Helper()
	p.mu.Lock()
	up := p.ln != nil
	p.hang = false
	p.reset() // the held connections of Hang
	p.mu.Unlock()
	if !up {
		p.listen(p.addr)
	}
}
