package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve --tls writes its certificate; run trusts it with --ca-cert, and
// without it stops at once naming the certificate problem.
func TestServeTLSAndRunCACert(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan int, 1)
	go func() { served <- serve(ctx, []string{"--addr", addr, "--tls", dir}, pw, io.Discard); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		<-served
	})
	lines := bufio.NewScanner(pr)
	var base string
	for base == "" && lines.Scan() {
		if m := regexp.MustCompile(`listening on (https://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	require.NotEmpty(t, base)
	go io.Copy(io.Discard, pr)
	cert := filepath.Join(dir, "cert.pem")
	require.FileExists(t, cert)

	keys := []string{"--text-key", "sk-local-text", "--messages-key", "sk-local-messages", "--image-key", "sk-local-image", "--alt-key", "sk-local-alt"}
	slice := []string{"--feature", "models.list,chat.*", "--base-url", base}
	code, _, stderr := gw2(t, "run", t.TempDir(), keys, slice)
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "certificate is signed by an authority this machine does not trust")

	code, stdout, stderr := gw2(t, "run", t.TempDir(), keys, slice, []string{"--ca-cert", cert})
	assert.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "conformance passed")
}
