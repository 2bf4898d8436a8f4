package testenv

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// SFTPServer is Debian's OpenSSH server on loopback serving SFTP only
// (internal-sftp) to one user, the test's own, who authenticates with a
// key; with a host key of its own.
type SFTPServer struct {
	// Host and Port are where it listens; User the login; Dir a folder
	// the user may write in (absolute).
	Host, User, Dir string
	Port            int
	// HostKey is the server's public key in authorized_keys form;
	// PrivateKey the user's key (OpenSSH PEM).
	HostKey, PrivateKey string
}

// StartSFTP starts an sshd (the one VIGIL_TEST_SSHD names, installed
// from Debian's openssh-server) for the test, stopped when it ends.
func StartSFTP(t testing.TB) *SFTPServer {
	t.Helper()
	sshd := URL(t, SSHD)
	dir := t.TempDir()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s := &SFTPServer{Host: "127.0.0.1", User: u.Username, Dir: filepath.Join(dir, "upload")}
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hostPub, hostPEM := newKey(t)
	userPub, userPEM := newKey(t)
	s.HostKey, s.PrivateKey = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(hostPub))), string(userPEM)
	hostKeyFile, authorized := filepath.Join(dir, "host_ed25519_key"), filepath.Join(dir, "authorized_keys")
	writeFile(t, hostKeyFile, hostPEM)
	writeFile(t, authorized, ssh.MarshalAuthorizedKey(userPub))
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	if s.Port, err = strconv.Atoi(port); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sshd_config")
	writeFile(t, conf, fmt.Appendf(nil, `ListenAddress 127.0.0.1:%d
HostKey %s
PidFile %s
AuthorizedKeysFile %s
AllowUsers %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowTcpForwarding no
X11Forwarding no
Subsystem sftp internal-sftp
ForceCommand internal-sftp
`, s.Port, hostKeyFile, filepath.Join(dir, "sshd.pid"), authorized, s.User))
	if os.Geteuid() == 0 {
		// sshd run by root wants its privilege separation folder.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startServer(t, "sshd", exec.Command(sshd, "-D", "-e", "-f", conf), addr)
	return s
}

// NewSSHKey returns a fresh ed25519 key: its public half in
// authorized_keys form and its private half as OpenSSH PEM.
func NewSSHKey(t testing.TB) (public, private string) {
	t.Helper()
	pub, priv := newKey(t)
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))), string(priv)
}

func newKey(t testing.TB) (ssh.PublicKey, []byte) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp, pem.EncodeToMemory(block)
}

func writeFile(t testing.TB, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
