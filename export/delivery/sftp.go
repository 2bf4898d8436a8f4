package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"strconv"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/vigilhq/vigil/export"
)

// errHostKey is the failure of an SFTP server whose host key is not the
// one pinned in the integration's settings.
var errHostKey = errors.New("the server's host key is not the pinned one")

// ParseHostKey reads an SFTP integration's pinned host key: the server's
// public key in authorized_keys form.
func ParseHostKey(s string) (ssh.PublicKey, error) {
	k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return k, nil
}

// pinned is a host key callback that accepts only want: a changed key is
// refused, never learnt.
func pinned(want ssh.PublicKey) ssh.HostKeyCallback {
	return func(_ string, _ net.Addr, got ssh.PublicKey) error {
		if !bytes.Equal(got.Marshal(), want.Marshal()) {
			return fmt.Errorf("%w: it offered %s %s", errHostKey, got.Type(), ssh.FingerprintSHA256(got))
		}
		return nil
	}
}

// sftp uploads the file to the integration's SFTP server: connected
// through the outbound guard, the server's host key checked against the
// pinned one, authenticated by the sealed private key; written under a
// temporary name and renamed, so a reader never sees half a file.
func (d *Deliverer) sftp(ctx context.Context, in Integration, j export.Job, file []byte) (string, error) {
	want, err := ParseHostKey(in.Settings.HostKey)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errFinal, err)
	}
	sec, err := Open(d.Box, in)
	if err != nil {
		return "", err
	}
	signer, err := ssh.ParsePrivateKey([]byte(sec.PrivateKey))
	if err != nil {
		return "", fmt.Errorf("%w: the private key: %w", errFinal, err)
	}
	addr := net.JoinHostPort(in.Settings.Host, strconv.Itoa(int(in.Settings.Port)))
	dialer := &net.Dialer{Timeout: sendTimeout, Control: d.guard().Control}
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", addr, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{User: in.Settings.Username,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: pinned(want), Timeout: sendTimeout})
	if err != nil {
		conn.Close()
		if errors.Is(err, errHostKey) {
			return "", fmt.Errorf("%w: %w", errFinal, err)
		}
		return "", fmt.Errorf("ssh to %s: %w", addr, err)
	}
	client := ssh.NewClient(sc, chans, reqs)
	defer client.Close()
	fs, err := sftp.NewClient(client)
	if err != nil {
		return "", fmt.Errorf("sftp on %s: %w", addr, err)
	}
	defer fs.Close()
	dir := in.Settings.Directory
	if dir == "" {
		dir = "."
	}
	target := path.Join(dir, j.Filename())
	partial := target + ".part"
	f, err := fs.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", partial, err)
	}
	if _, err := f.Write(file); err != nil {
		f.Close()
		return "", fmt.Errorf("write %s: %w", partial, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("close %s: %w", partial, err)
	}
	if err := fs.PosixRename(partial, target); err != nil {
		return "", fmt.Errorf("rename to %s: %w", target, err)
	}
	return fmt.Sprintf("uploaded to sftp://%s@%s/%s (%d bytes)", in.Settings.Username, addr, target, len(file)), nil
}
