// Package outbound guards the connections Vigil opens to targets its
// users name (alert webhooks, Slack incoming webhooks): only http and
// https, and never to loopback, private, link-local, shared (CGNAT),
// unspecified, multicast or otherwise non-public addresses, in any
// spelling (127.1, 2130706433, 0x7f000001, 0177.0.0.1, [::1],
// [::ffff:127.0.0.1], 64:ff9b::7f00:1, 0.0.0.0), unless an operator
// allow-lists them. The URL is checked when a target is accepted, and
// every address actually dialled is checked again at connect time, after
// name resolution, so a name that resolves (or rebinds) to a refused
// address is refused too. The client follows no redirect and uses no
// proxy from the environment.
//
// It imports nothing of Vigil.
package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is the error of a target the guard refuses.
var ErrRefused = errors.New("outbound target refused")

// Guard decides which addresses Vigil may connect to. The zero value
// refuses every non-public address.
type Guard struct {
	// Allow lists the address ranges an operator allows although they are
	// not public (VIGIL_OUTBOUND_ALLOW), e.g. 10.0.0.0/8 for an internal
	// webhook receiver; tests allow their loopback receivers.
	Allow []netip.Prefix
}

// ParseAllow reads an allow-list: addresses or CIDR prefixes.
func ParseAllow(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("outbound allow-list: %q is neither an address nor a CIDR prefix", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// CheckURL parses raw and refuses it unless its scheme is http or https,
// it names a host and carries no credentials, and a host written as an IP
// address (in any spelling) is one the guard allows. A host name passes
// here; its addresses are checked when dialled.
func (g *Guard) CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: not a URL", ErrRefused)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q (want http or https)", ErrRefused, u.Scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL", ErrRefused)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("%w: no host", ErrRefused)
	}
	if ip, ok := literal(host); ok {
		if err := g.check(ip); err != nil {
			return nil, err
		}
	} else if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") || strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".localhost") {
		return nil, fmt.Errorf("%w: %s is loopback", ErrRefused, host)
	}
	return u, nil
}

// literal reads host as an IP address in any spelling resolvers accept:
// IPv6 (mapped, with a zone), or IPv4 as inet_aton reads it (one to four
// parts, each decimal, octal with a leading 0 or hexadecimal with 0x, the
// last filling the remaining bytes: 127.1, 2130706433, 0x7f000001).
func literal(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a.WithZone(""), true
	}
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := inetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func inetPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, true // "0x" alone is 0 to inet_aton
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

// check refuses ip unless it is public or allow-listed.
func (g *Guard) check(ip netip.Addr) error {
	ip = ip.WithZone("").Unmap()
	for _, p := range g.Allow {
		if p.Contains(ip) {
			return nil
		}
	}
	if why := nonPublic(ip); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrRefused, ip, why)
	}
	return nil
}

var (
	sharedCGN = netip.MustParsePrefix("100.64.0.0/10")
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	benchmark = netip.MustParsePrefix("198.18.0.0/15")
	reserved  = netip.MustParsePrefix("240.0.0.0/4")
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// nonPublic says why ip is not a public unicast address, "" when it is.
// An IPv6 address that embeds an IPv4 one (NAT64, 6to4) is judged by it.
func nonPublic(ip netip.Addr) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified() || thisNet.Contains(ip):
		return "unspecified"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case sharedCGN.Contains(ip):
		return "shared address space"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case benchmark.Contains(ip) || reserved.Contains(ip) || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "reserved"
	case nat64.Contains(ip):
		b := ip.As16()
		return nonPublic(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case sixToFour.Contains(ip):
		b := ip.As16()
		return nonPublic(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	case !ip.IsGlobalUnicast():
		return "not global unicast"
	}
	return ""
}

// Control is a net.Dialer Control function that refuses a connection to
// an address the guard refuses: it sees the address after resolution.
func (g *Guard) Control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: dialled %q, not an address", ErrRefused, host)
	}
	return g.check(ip)
}

// Client returns an HTTP client whose every connection passes the guard,
// which uses no proxy, follows no redirect (the 3xx is the answer) and
// gives up after timeout.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, Control: g.Control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Refused reports whether err is the guard's refusal.
func Refused(err error) bool { return errors.Is(err, ErrRefused) }
