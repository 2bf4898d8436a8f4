package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// S3Server is an S3-compatible server on loopback: the Versity S3
// Gateway (Apache-2.0) over a posix folder of the test's own, where a
// bucket is a folder and an object a file.
type S3Server struct {
	// Endpoint is its http URL; AccessKey and SecretKey its root user's
	// credentials; Region the one it signs for.
	Endpoint, AccessKey, SecretKey, Region string
	// Root is the posix folder it serves.
	Root string

	cmd *exec.Cmd
}

// StartS3 starts an S3 server (the versitygw VIGIL_TEST_VERSITYGW names)
// for the test with each of buckets made, stopped when it ends.
func StartS3(t testing.TB, buckets ...string) *S3Server {
	t.Helper()
	bin := URL(t, VersityGW)
	dir := t.TempDir()
	s := &S3Server{AccessKey: "vigil-test-access", SecretKey: "vigil-test-secret-0123456789", Region: "us-east-1",
		Root: filepath.Join(dir, "root")}
	for _, b := range buckets {
		if err := os.MkdirAll(filepath.Join(s.Root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	s.Endpoint = "http://" + addr
	cmd := exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region, "--port", addr,
		"posix", "--nometa", s.Root)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	startServer(t, "versitygw", cmd, addr)
	s.cmd = cmd
	return s
}

// Stop kills the server (an outage of the store) and waits for it to
// exit; its folder stays.
func (s *S3Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatalf("stop versitygw: %v", err)
	}
	_ = s.cmd.Wait() // killed: its exit status says so
}

// Object returns the stored content of an object, read from the folder.
func (s *S3Server) Object(t testing.TB, bucket, key string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Root, bucket, filepath.FromSlash(key)))
	if err != nil {
		t.Fatalf("object %s/%s: %v", bucket, key, err)
	}
	return b
}

// String names the server for logs.
func (s *S3Server) String() string { return fmt.Sprintf("versitygw at %s over %s", s.Endpoint, s.Root) }
