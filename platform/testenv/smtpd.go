package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// SMTPServer is a real SMTP server (aiosmtpd) on loopback that requires
// STARTTLS before MAIL, with a certificate of its own for 127.0.0.1.
type SMTPServer struct {
	// Addr is host:port; CAFile the certificate to trust (PEM), which TLS
	// also trusts.
	Addr, CAFile string
	TLS          *tls.Config
	maildir      string
}

// StartSMTP starts an SMTP server for the test, stopped when it ends.
func StartSMTP(t testing.TB) *SMTPServer {
	t.Helper()
	py := URL(t, SMTPDPython)
	dir := t.TempDir()
	s := &SMTPServer{maildir: filepath.Join(dir, "maildir")}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	s.CAFile = certFile
	pool := selfSigned(t, certFile, keyFile)
	s.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	s.Addr = freeAddr(t)
	startServer(t, "aiosmtpd", exec.Command(py, "-m", "aiosmtpd", "-n", "-l", s.Addr, "--tlscert", certFile, "--tlskey", keyFile,
		"-c", "aiosmtpd.handlers.Mailbox", s.maildir), s.Addr)
	return s
}

// Messages returns the messages received so far, oldest first.
func (s *SMTPServer) Messages(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.maildir, "new", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// the pool that trusts it.
func selfSigned(t testing.TB, certFile, keyFile string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}
